/**
 * The chat message types, re-exported from the bottom layer (`src/core/messages.ts`) for the model clients.
 * @module
 */
export * from "../core/messages.ts";
