/**
 * A case's repair checks: the payment gateway's six (repair_checks.ts) or its checks module's, each run in
 * the sandbox child (sandbox_child.ts), never in this process, giving back one zod-checked verdict; and
 * `sweep case check DIR`, every defect of a case folder.
 * @module
 */
import { factProblems, loadSweepCase, paymentsRepairSpec, type SweepFixture } from "./fixture.ts";
import { extractRepair, type RepairCheckReport, runRepairChecks, unextracted } from "./repair_checks.ts";
import { exchangeInSandbox, type SandboxLaunch, type SandboxLimits } from "./sandbox.ts";
import { UsageError } from "../../errors.ts";

const namesBySource = new Map<string, Promise<string[]>>();

/** Thrown when a case's checks module cannot be listed in the sandbox (it does not load, or names no check). */
export class CaseChecksError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CaseChecksError";
  }
}

/** The names of a checks module's checks, listed in the sandbox (once per source and process). */
export function caseCheckNames(
  source: string,
  limits: SandboxLimits = {},
  launch?: SandboxLaunch,
): Promise<string[]> {
  let names = namesBySource.get(source);
  if (names === undefined) {
    names = exchangeInSandbox([{ t: "case-list", checks: source }], limits, launch).then(([outcome]) => {
      if (outcome.status !== "completed" || outcome.result.t !== "list") {
        throw new CaseChecksError(outcome.status === "completed" ? "no list" : outcome.error);
      }
      const list = outcome.result.names;
      if (list.length === 0) throw new CaseChecksError("the checks module has no check");
      const repeated = list.find((name, index) => list.indexOf(name) !== index);
      if (repeated !== undefined) throw new CaseChecksError(`check ${JSON.stringify(repeated)} repeats`);
      return list;
    });
    names.catch(() => namesBySource.delete(source));
    namesBySource.set(source, names);
  }
  return names;
}

/**
 * Extracts the repair from `answer` and runs the case's checks on it (a module's, each in the sandbox; one
 * the child did not finish fails); never throws for what the answer contains.
 */
export async function runCaseRepairChecks(
  answer: string,
  fixture: SweepFixture,
  limits: SandboxLimits = {},
  launch?: SandboxLaunch,
): Promise<RepairCheckReport> {
  if (fixture.checks.kind === "builtin") {
    return await runRepairChecks(answer, paymentsRepairSpec(fixture.repair), limits, launch);
  }
  const source = fixture.checks.source;
  const extraction = extractRepair(answer, fixture.repair.functionName, fixture.repair.params);
  const names = await caseCheckNames(source, limits, launch);
  if (!extraction.ok) return unextracted(names, extraction.error);
  const outcomes = await exchangeInSandbox(
    names.map((check) => ({
      t: "case-check",
      checks: source,
      check,
      values: fixture.repair.values,
      repair: extraction.source,
      functionName: fixture.repair.functionName,
    })),
    limits,
    launch,
  );
  const checks = names.map((name, index) => {
    const outcome = outcomes[index];
    if (outcome.status !== "completed") {
      return { name, passed: false, detail: `${outcome.status}: ${outcome.error}` };
    }
    if (outcome.result.t !== "verdict") return { name, passed: false, detail: "no verdict" };
    return { name, passed: outcome.result.passed, detail: outcome.result.detail };
  });
  return { checks, all_passed: checks.every((check) => check.passed) };
}

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
