/** The program's name and version, recorded in every manifest. */
export const PROGRAM = { name: "compaction-bench", version: "0.1.0" } as const;
