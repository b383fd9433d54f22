/**
 * A scanning worker of `ScanPool` (./dir_scan.ts): takes blob folders from the shared count and answers each
 * with `scanDirectorySync`'s result, or with the failure's text.
 *
 * @module
 */
import { type ScanReply, type ScanRequest, serveScanRequest } from "./dir_scan.ts";

const scope = globalThis as unknown as {
  onmessage: (event: MessageEvent<ScanRequest>) => void;
  postMessage(message: ScanReply): void;
};

scope.onmessage = (event) => serveScanRequest(event.data, (reply) => scope.postMessage(reply));
