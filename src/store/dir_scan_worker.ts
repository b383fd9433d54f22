/**
 * A scanning worker of `ScanPool` (./dir_scan.ts): answers each request with `scanDirectorySync`'s result, or
 * with the failure's text.
 *
 * @module
 */
import { scanDirectorySync, type ScanReply, type ScanRequest } from "./dir_scan.ts";

const scope = globalThis as unknown as {
  onmessage: (event: MessageEvent<ScanRequest>) => void;
  postMessage(message: ScanReply): void;
};

scope.onmessage = (event) => {
  const { id, dir, hashBlobs } = event.data;
  let reply: ScanReply;
  try {
    reply = { id, scan: scanDirectorySync(dir, hashBlobs) };
  } catch (error) {
    reply = { id, failure: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
  scope.postMessage(reply);
};
