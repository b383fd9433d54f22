/**
 * The identity of the logical request a provider call belongs to: the node key of the stage execution that
 * makes it, sent in {@link REQUEST_IDENTITY_HEADER}. The reference server's fault mode keys on it, so the
 * identical bodies of different nodes fault independently, as at a real provider.
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Header carrying the node key of the stage execution a request belongs to. */
export const REQUEST_IDENTITY_HEADER = "x-compaction-bench-request";

/** How a declared identity must look to be used (a short token of safe characters). */
export const REQUEST_IDENTITY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const scope = new AsyncLocalStorage<string>();

/** Runs `fn` with `identity` as the identity of every provider call it makes (awaited work included). */
export function withRequestIdentity<T>(identity: string, fn: () => T): T {
  return scope.run(identity, fn);
}

/** The identity of the stage execution the caller runs in, or undefined outside of one. */
export function currentRequestIdentity(): string | undefined {
  return scope.getStore();
}

/** The identity header of the current stage execution, or no header outside of one. */
export function identityHeader(): Record<string, string> {
  const identity = currentRequestIdentity();
  return identity === undefined ? {} : { [REQUEST_IDENTITY_HEADER]: identity };
}
