/**
 * The identity of the logical request a provider call belongs to: the node key of the stage execution that
 * makes it. The executor runs each stage body inside {@link withRequestIdentity}; the chat and decision clients
 * send {@link currentRequestIdentity} in {@link REQUEST_IDENTITY_HEADER} on every attempt.
 *
 * Why: the protocol's repeats (two answers per generation, the same Full context in every generation) send
 * byte-identical bodies at temperature 0. A provider's failures hit requests, not bodies, so the reference
 * server's fault mode keys a fault on the request's identity as well as its body and attempt: identical
 * bodies of different nodes fault independently, as they would at a real provider, and the faults stay a
 * function of the seed, the body, the node and the attempt (not of timing or concurrency).
 *
 * The value is a SHA-256 node key: it names a stage execution of this run and carries nothing of a prompt or a
 * credential.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Header carrying the node key of the stage execution a request belongs to. */
export const REQUEST_IDENTITY_HEADER = "x-compaction-bench-request";

/** How a declared identity must look to be used (a hex node key, or any short token of safe characters). */
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
