/**
 * A sweep case folder (case_format.ts) loaded as the fixture the sweep runs. A trajectory is scored only
 * through the case whose pin matches its bytes (else its facts and checks are unknown: refused).
 * @module
 */
import { z } from "zod";
import { assetPath } from "../../assets.ts";
import { UsageError } from "../../errors.ts";
import { INPUT_MAX_BYTES, readInputFile } from "../../fs_input.ts";
import { type ChatMessage, ChatMessageSchema } from "../../models/messages.ts";
import { canonicalHash, sha256Hex } from "../../store/hash.ts";
import {
  type CaseRepair,
  type Fact,
  foldWhitespace,
  PaymentsValuesSchema,
  type RepairSpec,
  SIGNATURE,
  type SweepCaseJson,
  SweepCaseSchema,
} from "./case_format.ts";
import { type EvidenceUnit, splitUnits } from "./contexts.ts";
import { parseJson } from "../../core/json_read.ts";

export type { CaseRepair, Fact, RepairSpec, UnitBoundary } from "./case_format.ts";

/** The default case (the payment investigation), relative to the project root. */
export const DEFAULT_SWEEP_CASE = "fixtures/sweep/payments";
/** The folders of the built-in cases (fixtures/sweep/ holds the default case alone). */
const BUILT_IN_CASES = ["fixtures/sweep", "fixtures/sweep-cases"] as const;
/** The path of the default sweep trajectory, relative to the project root. */
export const DEFAULT_SWEEP_TRAJECTORY = `${DEFAULT_SWEEP_CASE}/trajectory.json`;

/**
 * The shipped payment case's id (canonical hash of case.json without `reference_repair`): its stages'
 * `fixture` param stays its trajectory's SHA-256, so its keys are unchanged; other cases use their case id.
 */
const PAYMENTS_CASE_ID = "4283721ff722c8fca94990ba86732cd284b50246801dbe979ce693279e7a6f58";

const TrajectorySchema: z.ZodType<ChatMessage[]> = z.array(ChatMessageSchema).min(1);

type CaseChecks =
  | { kind: "builtin"; name: "payments-gateway" }
  | { kind: "module"; file: string; source: string };

/**
 * A loaded sweep case. `path`: the trajectory file read; `dir` null when rebuilt from a run's sources;
 * `hash`: the stages' `fixture` param ({@link PAYMENTS_CASE_ID}); `trajectoryHash`: the pin; `caseId`: the
 * canonical hash of case.json (without reference_repair) and the checks; `sources`: the files as sources.
 */
export interface SweepFixture {
  path: string;
  dir: string | null;
  name: string;
  trajectory: ChatMessage[];
  hash: string;
  trajectoryHash: string;
  caseId: string;
  units: EvidenceUnit[];
  facts: Fact[];
  followUp: string;
  repairSignature: string;
  repair: CaseRepair;
  checks: CaseChecks;
  referenceRepair?: string;
  sources: Record<string, Uint8Array>;
}

function decodeJson(bytes: Uint8Array, what: string): unknown {
  try {
    return parseJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypeError) {
      throw new UsageError(`${what}: not valid UTF-8 JSON (${error.message})`, { cause: error });
    }
    throw error;
  }
}

function decodeText(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`${what}: not valid UTF-8 text`, { cause: error });
    throw error;
  }
}

/** Parses case.json's bytes; a bad field is a {@link UsageError} naming the file, field and value. */
function parseCaseJson(bytes: Uint8Array, what: string): SweepCaseJson {
  const json = decodeJson(bytes, what);
  const parsed = SweepCaseSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? issue.path.join(".") : "top level";
    let at = json;
    for (const key of issue.path) at = (at as Record<PropertyKey, unknown>)?.[key as PropertyKey];
    const value = at === undefined ? "" : ` (value ${JSON.stringify(at).slice(0, 80)})`;
    throw new UsageError(`${what}: field ${field}: ${issue.message}${value}`);
  }
  return parsed.data;
}

function parseTrajectory(bytes: Uint8Array, what: string): ChatMessage[] {
  const parsed = TrajectorySchema.safeParse(decodeJson(bytes, what));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? `message ${issue.path.join(".")}` : "top level";
    throw new UsageError(`${what}: ${where}: ${issue.message}`);
  }
  return parsed.data;
}

interface CaseFiles {
  case: Uint8Array;
  trajectory: Uint8Array;
  checks?: Uint8Array;
  reference_repair?: Uint8Array;
}

/** The fixture from a case's files, each part validated; `where` names the case in errors. */
function sweepFixtureFromFiles(
  files: CaseFiles,
  where: { dir: string | null; label: string; trajectoryPath?: string; facts?: boolean },
): SweepFixture {
  const json = parseCaseJson(files.case, `${where.label}/case.json`);
  const trajectoryWhat = where.trajectoryPath ?? `${where.label}/${json.trajectory.file}`;
  const trajectoryHash = sha256Hex(files.trajectory);
  if (trajectoryHash !== json.trajectory.sha256) {
    throw new UsageError(
      `trajectory ${trajectoryWhat}: sha256 ${trajectoryHash} is not the pin of case ${json.name} ` +
        `(${where.label}/case.json field trajectory.sha256 is ${json.trajectory.sha256})`,
    );
  }
  const trajectory = parseTrajectory(files.trajectory, `trajectory ${trajectoryWhat}`);
  let units: EvidenceUnit[];
  try {
    units = splitUnits(trajectory, json.units);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new UsageError(`${where.label}/case.json field units: ${error.message}`);
  }
  const ids = new Set<string>();
  for (const [index, unit] of json.units.entries()) {
    if (ids.has(unit.id)) {
      throw new UsageError(`${where.label}/case.json field units.${index}.id: ${unit.id} repeats`);
    }
    ids.add(unit.id);
  }
  for (const [index, fact] of json.facts.entries()) {
    if (!ids.has(fact.unit)) {
      throw new UsageError(
        `${where.label}/case.json field facts.${index}.unit: no unit ${JSON.stringify(fact.unit)}`,
      );
    }
  }
  const [, name, client, input] = SIGNATURE.exec(json.repair.signature)!;
  if (name !== json.repair.function) {
    throw new UsageError(
      `${where.label}/case.json field repair.signature: names ${name}, not repair.function ` +
        `${json.repair.function}`,
    );
  }
  let checks: CaseChecks;
  let checksHash: string;
  if ("builtin" in json.checks) {
    const values = PaymentsValuesSchema.safeParse(json.repair.values);
    if (!values.success) {
      const issue = values.error.issues[0];
      throw new UsageError(
        `${where.label}/case.json field repair.values.${issue.path.join(".")}: ${issue.message} ` +
          `(the payments-gateway checks need it)`,
      );
    }
    checks = { kind: "builtin", name: json.checks.builtin };
    checksHash = json.checks.builtin;
  } else {
    if (files.checks === undefined) {
      throw new UsageError(`${where.label}/case.json field checks.module: ${json.checks.module} not found`);
    }
    checks = {
      kind: "module",
      file: json.checks.module,
      source: decodeText(files.checks, `${where.label}/${json.checks.module}`),
    };
    checksHash = sha256Hex(files.checks);
  }
  const { reference_repair: _reference, ...scored } = json;
  const caseId = canonicalHash({ case: scored, checks: checksHash });
  const sources: Record<string, Uint8Array> = { trajectory: files.trajectory, case: files.case };
  if (files.checks !== undefined && checks.kind === "module") sources.checks = files.checks;
  let referenceRepair: string | undefined;
  if (json.reference_repair !== undefined && files.reference_repair !== undefined) {
    referenceRepair = decodeText(files.reference_repair, `${where.label}/${json.reference_repair}`);
    sources.reference_repair = files.reference_repair;
  }
  const fixture: SweepFixture = {
    path: trajectoryWhat,
    dir: where.dir,
    name: json.name,
    trajectory,
    hash: caseId === PAYMENTS_CASE_ID ? trajectoryHash : caseId,
    trajectoryHash,
    caseId,
    units,
    facts: json.facts,
    followUp: json.follow_up,
    repairSignature: json.repair.signature,
    repair: {
      functionName: json.repair.function,
      signature: json.repair.signature,
      params: [client, input],
      values: json.repair.values,
    },
    checks,
    ...(referenceRepair !== undefined ? { referenceRepair } : {}),
    sources,
  };
  if (where.facts !== false) {
    const problems = factProblems(fixture, where.label);
    if (problems.length > 0) throw new UsageError(`${problems[0]} (sweep case check names every defect)`);
  }
  return fixture;
}

async function readCaseJson(dir: string): Promise<{ bytes: Uint8Array; json: SweepCaseJson }> {
  const bytes = await readInputFile(`${dir}/case.json`, "--case", INPUT_MAX_BYTES.sweepCase);
  return { bytes, json: parseCaseJson(bytes, `${dir}/case.json`) };
}

/** Loads the case in folder `dir`; `trajectory` replaces reading the pinned file (`--trajectory`). */
export async function loadSweepCase(
  dir: string,
  trajectory?: { path: string; bytes: Uint8Array },
  check: { facts?: boolean } = {},
): Promise<SweepFixture> {
  const { bytes, json } = await readCaseJson(dir);
  const read = (file: string, field: string) => readInputFile(`${dir}/${file}`, `${dir}/case.json ${field}`);
  const files: CaseFiles = {
    case: bytes,
    trajectory: trajectory?.bytes ?? await read(json.trajectory.file, "trajectory.file"),
  };
  if ("module" in json.checks) files.checks = await read(json.checks.module, "checks.module");
  const reference = json.reference_repair;
  if (reference !== undefined) files.reference_repair = await read(reference, "reference_repair");
  return await sweepFixtureFromFiles(files, { dir, label: dir, trajectoryPath: trajectory?.path, ...check });
}

/** The folders of the built-in cases (every folder with a case.json in {@link BUILT_IN_CASES}), sorted. */
function builtInCaseDirs(): string[] {
  const dirs: string[] = [];
  for (const root of BUILT_IN_CASES.map(assetPath)) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(root)];
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    const here: string[] = [];
    for (const entry of entries) {
      if (!entry.isDirectory) continue;
      try {
        if (Deno.statSync(`${root}/${entry.name}/case.json`).isFile) here.push(`${root}/${entry.name}`);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    dirs.push(...here.sort());
  }
  return dirs;
}

/** The case a sweep runs: `--case DIR`, the one pinning `--trajectory FILE` (else refused) or the default. */
export async function resolveSweepCase(
  options: { case?: string[]; trajectory?: string },
): Promise<SweepFixture> {
  const given = options.case ?? [];
  if (options.trajectory === undefined) {
    if (given.length > 1) {
      throw new UsageError(
        `--case: ${given.length} folders given; without --trajectory give one (with it, the one whose pin ` +
          `matches the file runs)`,
      );
    }
    return await loadSweepCase(given[0] ?? assetPath(DEFAULT_SWEEP_CASE));
  }
  const bytes = await readInputFile(options.trajectory, "--trajectory");
  const hash = sha256Hex(bytes);
  const known: string[] = [];
  for (const dir of [...given, ...builtInCaseDirs()]) {
    const { json } = await readCaseJson(dir);
    if (json.trajectory.sha256 === hash) {
      return await loadSweepCase(dir, { path: options.trajectory, bytes });
    }
    known.push(`${json.name} ${json.trajectory.sha256}`);
  }
  throw new UsageError(
    `trajectory ${options.trajectory}: sha256 ${hash} is the pin of no sweep case; its facts and repair ` +
      `checks are unknown, so it cannot be scored (known: ${
        known.join(", ")
      }; a case of your own: --case DIR)`,
  );
}

/** Loads the built-in case pinning the trajectory at `path` (default: the payment case's), or throws. */
export async function loadSweepFixture(path?: string): Promise<SweepFixture> {
  return await resolveSweepCase(path === undefined ? {} : { trajectory: path });
}

/** A run's fixture from its sources in `store`: its stored case files, else the built-in case it pins. */
export async function sweepFixtureFromSources(
  sources: Readonly<Record<string, string>>,
  store: { get(hash: string): Promise<Uint8Array> },
  label: string,
): Promise<SweepFixture> {
  const get = async (name: string) => sources[name] ? await store.get(sources[name]) : undefined;
  const trajectory = await get("trajectory");
  if (trajectory === undefined) throw new UsageError(`${label}: no trajectory source`);
  const caseJson = await get("case");
  if (caseJson === undefined) {
    const hash = sha256Hex(trajectory);
    for (const dir of builtInCaseDirs()) {
      const { json } = await readCaseJson(dir);
      if (json.trajectory.sha256 === hash) {
        return await loadSweepCase(dir, { path: `${label}'s trajectory source`, bytes: trajectory });
      }
    }
    throw new UsageError(`${label}: trajectory source ${hash} is the pin of no built-in sweep case`);
  }
  const files: CaseFiles = { case: caseJson, trajectory };
  const checks = await get("checks");
  if (checks !== undefined) files.checks = checks;
  const reference = await get("reference_repair");
  if (reference !== undefined) files.reference_repair = reference;
  return await sweepFixtureFromFiles(files, {
    dir: null,
    label: `${label}'s case source`,
    trajectoryPath: `${label}'s trajectory source`,
  });
}

/** The built-in payment gateway's repair values of a case (its checks must be `payments-gateway`). */
export function paymentsRepairSpec(repair: CaseRepair): RepairSpec {
  return {
    functionName: repair.functionName,
    signature: repair.signature,
    ...PaymentsValuesSchema.parse(repair.values),
  };
}

/** The facts' own defects: not verbatim in their unit, or found where an answer could copy them from. */
export function factProblems(fixture: SweepFixture, label: string): string[] {
  const problems: string[] = [];
  const where = `${label}/case.json`;
  const systems = fixture.trajectory.flatMap((message, index) =>
    message.role === "system" && typeof message.content === "string"
      ? [{ index, text: foldWhitespace(message.content) }]
      : []
  );
  const followUp = foldWhitespace(fixture.followUp);
  for (const [index, fact] of fixture.facts.entries()) {
    const unit = fixture.units.find((u) => u.id === fact.unit);
    const value = JSON.stringify(fact.text).slice(0, 80);
    if (unit !== undefined && !unit.text.includes(fact.text)) {
      problems.push(
        `${where} field facts.${index}.text: ${value} does not occur verbatim in its unit ${fact.unit}`,
      );
    }
    const text = foldWhitespace(fact.text);
    if (followUp.includes(text)) {
      problems.push(
        `${where} field facts.${index}.text: ${value} leaks: the follow-up (field follow_up) contains it`,
      );
    }
    for (const system of systems) {
      if (system.text.includes(text)) {
        problems.push(
          `${where} field facts.${index}.text: ${value} leaks: the system prompt (trajectory message ` +
            `${system.index}) contains it`,
        );
      }
    }
  }
  return problems;
}
