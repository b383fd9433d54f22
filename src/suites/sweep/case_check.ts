/**
 * `sweep case check DIR`: every defect of a case folder, each naming file, field and value (schema, pin,
 * units, facts missing or leaked, checks that do not load, a failing reference repair, a check an empty
 * repair passes).
 * @module
 */
import { UsageError } from "../../errors.ts";
import { runCaseRepairChecks } from "./case_checks.ts";
import { factProblems, loadSweepCase, type SweepFixture } from "./fixture.ts";

function fenced(source: string): string {
  return `Repair:\n\n\`\`\`js\n${source}\n\`\`\`\n`;
}

/** Checks the case folder `dir`: defects (one line each) and what held; never throws for a defect. */
export async function checkSweepCase(dir: string): Promise<{ problems: string[]; notes: string[] }> {
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
  const pin = fixture.trajectoryHash.slice(0, 12);
  const units = fixture.units.length;
  notes.push(
    `case ${fixture.name}: trajectory ${pin} pinned; ${units} units tile its ${toolResults} tool results`,
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
  const empty = await runCaseRepairChecks(fenced(`${fixture.repair.signature} {}`), fixture);

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
