/**
 * The hidden command word of the repair sandbox's child, apart from the child itself (`sandbox_child.ts`), so
 * main.ts can recognise it without loading the child's modules in every other process.
 *
 * @module
 */

/** The hidden command word that makes the program serve as a repair sandbox child (the single binary). */
export const REPAIR_SANDBOX_COMMAND = "__repair-sandbox-child";
