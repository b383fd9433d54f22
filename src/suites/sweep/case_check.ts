/**
 * `sweep case check DIR`, the case author's tool: every defect of a case folder, each naming the file, field
 * and value — the format (case.json's schema), the trajectory's pin, units that do not tile every tool result,
 * a fact missing from its unit or leaked (into the follow-up or a system prompt, where an answer could copy it
 * from without the evidence), a checks module that does not load in the sandbox, a reference repair that
 * fails a check, and a check that an empty repair passes (a check that cannot fail).
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import { runCaseRepairChecks } from "./case_checks.ts";
import { factProblems, loadSweepCase, type SweepFixture } from "./fixture.ts";

/** What `sweep case check` found: defects (each one line) and what held. */
export interface CaseCheckReport {
  problems: string[];
  notes: string[];
}

/** The empty repair of a case: the required signature and nothing in its body. */
export function emptyRepair(fixture: SweepFixture): string {
  return `${fixture.repair.signature} {}`;
}

function fenced(source: string): string {
  return `Repair:\n\n\`\`\`js\n${source}\n\`\`\`\n`;
}

/** Checks the case folder `dir`; never throws for a defect of the case (each is a problem line). */
export async function checkSweepCase(dir: string): Promise<CaseCheckReport> {
  const problems: string[] = [];
  const notes: string[] = [];
  let fixture: SweepFixture;
  try {
    fixture = await loadSweepCase(dir, undefined, { facts: false });
  } catch (error) {
    if (error instanceof UsageError) return { problems: [error.message], notes };
    throw error;
  }
  const toolResults = fixture.trajectory.filter((m) => m.role === "tool").length;
  notes.push(
    `case ${fixture.name}: trajectory ${
      fixture.trajectoryHash.slice(0, 12)
    } pinned; ${fixture.units.length} ` +
      `units tile its ${toolResults} tool results`,
  );
  const facts = factProblems(fixture, dir);
  problems.push(...facts);
  if (facts.length === 0) {
    notes.push(
      `${fixture.facts.length} facts, each verbatim in its unit, none in the follow-up or a system prompt`,
    );
  }
  const checksFile = fixture.checks.kind === "module" ? `${dir}/${fixture.checks.file}` : "payments-gateway";
  let reference;
  try {
    if (fixture.referenceRepair === undefined) {
      problems.push(
        `${dir}/case.json field reference_repair: missing (a reference repair that passes every check)`,
      );
    } else {
      reference = await runCaseRepairChecks(fenced(fixture.referenceRepair), fixture);
    }
  } catch (error) {
    if (!(error instanceof Error) || error.name !== "CaseChecksError") throw error;
    problems.push(`${checksFile}: the checks module does not load in the sandbox: ${error.message}`);
    return { problems, notes };
  }
  const empty = await runCaseRepairChecks(fenced(emptyRepair(fixture)), fixture);
  notes.push(`checks (${checksFile}) load in the sandbox: ${empty.checks.map((c) => c.name).join(", ")}`);
  if (reference !== undefined) {
    for (const check of reference.checks.filter((c) => !c.passed)) {
      problems.push(
        `${dir}/case.json field reference_repair: the reference repair fails check ${check.name}: ${check.detail}`,
      );
    }
    if (reference.all_passed) notes.push(`the reference repair passes all ${reference.checks.length} checks`);
  }
  for (const check of empty.checks.filter((c) => c.passed)) {
    problems.push(`${checksFile}: check ${check.name} passes an empty repair (a check that cannot fail)`);
  }
  if (empty.checks.every((c) => !c.passed)) {
    notes.push(`an empty repair fails all ${empty.checks.length} checks`);
  }
  return { problems, notes };
}
