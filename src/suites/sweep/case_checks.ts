/**
 * A case's repair checks: the payment gateway's six (repair_checks.ts) or its checks module's, each run in
 * the sandbox child (sandbox_child.ts), never in this process, giving back one zod-checked verdict.
 * @module
 */
import { paymentsRepairSpec, type SweepFixture } from "./fixture.ts";
import { extractRepair, type RepairCheckReport, runRepairChecks } from "./repair_checks.ts";
import { exchangeInSandbox, type SandboxLaunch, type SandboxLimits } from "./sandbox.ts";

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
      const seen = new Set<string>();
      for (const name of list) {
        if (seen.has(name)) throw new CaseChecksError(`check ${JSON.stringify(name)} repeats`);
        seen.add(name);
      }
      return list;
    });
    names.catch(() => namesBySource.delete(source));
    namesBySource.set(source, names);
  }
  return names;
}

/** Runs an extracted repair through each check of a checks module; one the child did not finish fails. */
async function runModuleChecks(
  fixture: SweepFixture,
  repairSource: string,
  limits: SandboxLimits = {},
  launch?: SandboxLaunch,
): Promise<RepairCheckReport> {
  if (fixture.checks.kind !== "module") throw new Error("runModuleChecks: the case's checks are built in");
  const source = fixture.checks.source;
  const names = await caseCheckNames(source, limits, launch);
  const outcomes = await exchangeInSandbox(
    names.map((check) => ({
      t: "case-check",
      checks: source,
      check,
      values: fixture.repair.values,
      repair: repairSource,
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

/** Extracts the repair from `answer` and runs the case's checks on it; never throws for what it contains. */

export async function runCaseRepairChecks(
  answer: string,
  fixture: SweepFixture,
  limits: SandboxLimits = {},
  launch?: SandboxLaunch,
): Promise<RepairCheckReport> {
  if (fixture.checks.kind === "builtin") {
    return await runRepairChecks(answer, paymentsRepairSpec(fixture.repair), limits, launch);
  }
  const extraction = extractRepair(answer, fixture.repair.functionName, fixture.repair.params);
  if (!extraction.ok) {
    const names = await caseCheckNames(fixture.checks.source, limits, launch);
    return {
      checks: names.map((name) => ({ name, passed: false, detail: extraction.error })),
      all_passed: false,
      error: extraction.error,
    };
  }
  return await runModuleChecks(fixture, extraction.source, limits, launch);
}
