/** The single binary's hidden command word for the sandbox child (apart: main.ts need not load the child). */
export const REPAIR_SANDBOX_COMMAND = "__repair-sandbox-child";
