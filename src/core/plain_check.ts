/**
 * Fast one-sided checks derived from zod schemas, for values read by the thousand (stage outputs, requests,
 * corpus questions). A check's yes means the schema accepts the value and would return it member for member
 * (so it can be taken as read); a no decides nothing: the caller parses with the schema, which names the
 * problem. Whatever the derivation does not model exactly (refinements of objects, superRefine, transforms,
 * defaults, coercion, plain unions, unknown checks) answers no; a string's refine runs its predicate. Like
 * zod's own object parser, the check is compiled to JavaScript once per schema (`new Function`; names are
 * JSON string literals, constants passed as values) so it runs about as fast as a hand-written one.
 * @module
 */
import type { z } from "zod";

/** The parts of a zod 4 definition (`schema._zod.def`) the derivation reads. */
interface Def {
  type: string;
  checks?: { _zod: { def: { check: string; [key: string]: unknown } } }[];
  coerce?: boolean;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
}

const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

/** An object as parsed JSON makes it: no prototype or Object's. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Compiles schemas to functions `f0`, `f1`, … of the source; constants are `c[i]`. */
class Compiler {
  readonly source: string[] = [];
  readonly constants: unknown[] = [];
  #count = 0;

  ref(value: unknown): string {
    this.constants.push(value);
    return `c[${this.constants.length - 1}]`;
  }

  /** A function of `v` with `body`; its name. */
  fn(body: string): string {
    const name = `f${this.#count++}`;
    this.source.push(`function ${name}(v) {\n${body}\n}`);
    return name;
  }

  /** The checks of a string's or array's length or a number's range, each on `x` (null: one not modelled). */
  bounds(def: Def, x: string, size: string): string[] | null {
    const out: string[] = [];
    for (const { _zod: { def: check } } of def.checks ?? []) {
      const bound = this.ref(check.minimum ?? check.maximum ?? check.length ?? check.value);
      const or = check.inclusive ? "=" : "";
      const test = {
        min_length: `${size} >= ${bound}`,
        max_length: `${size} <= ${bound}`,
        length_equals: `${size} === ${bound}`,
        greater_than: `${x} >${or} ${bound}`,
        less_than: `${x} <${or} ${bound}`,
      }[check.check];
      if (check.check === "number_format" && check.format === "safeint") {
        out.push(`Number.isSafeInteger(${x})`);
      } else if (check.check === "string_format" && check.format === "regex") {
        const pattern = this.ref(check.pattern); // lastIndex reset as zod does
        out.push(`(${pattern}.lastIndex = 0, ${pattern}.test(${x}))`);
      } else if (check.check === "custom" && typeof check.fn === "function") {
        out.push(`${this.ref(check.fn)}(${x}) === true`); // a refine's predicate (superRefine has none)
      } else if (test !== undefined) out.push(test);
      else return null;
    }
    return out;
  }

  /** `x` is one of `values` (a few strings are compared inline). */
  oneOf(values: unknown[], x: string): string {
    if (values.length > 4 || values.some((value) => typeof value !== "string")) {
      return `${this.ref(new Set(values))}.has(${x})`;
    }
    return `(${values.map((value) => `${x} === ${JSON.stringify(value)}`).join(" || ") || "false"})`;
  }

  /** The expression checking `x` (a local name) against `schema`. */
  expr(schema: z.ZodType, x: string): string {
    const def = defOf(schema);
    if (def.coerce || (def.checks?.length && !["string", "number", "array"].includes(def.type))) {
      return "false";
    }
    const withBounds = (is: string, size: string) => {
      const bounds = this.bounds(def, x, size);
      return bounds === null ? "false" : [is, ...bounds].join(" && ");
    };
    switch (def.type) {
      case "string":
        return withBounds(`typeof ${x} === "string"`, `${x}.length`);
      case "number":
        return withBounds(`typeof ${x} === "number" && Number.isFinite(${x})`, "NaN");
      case "boolean":
        return `typeof ${x} === "boolean"`;
      case "null":
        return `${x} === null`;
      case "unknown":
      case "any":
        return "true";
      case "literal":
        return this.oneOf(def.values!, x);
      case "enum": {
        const values = Object.values(def.entries!);
        return values.every((v) => typeof v === "string") ? this.oneOf(values, x) : "false";
      }
      case "nullable":
        return `(${x} === null || ${this.expr(def.innerType!, x)})`;
      case "optional":
        return `(${x} === undefined || ${this.expr(def.innerType!, x)})`;
      case "object":
        return `${this.object(def)}(${x})`;
      case "record":
        return `${this.record(def)}(${x})`;
      case "array":
        return `${this.array(def)}(${x})`;
      case "union":
        return def.discriminator === undefined ? "false" : `${this.union(def)}(${x})`; // zod tries plain ones in turn
    }
    return "false";
  }

  object(def: Def): string {
    const keys = Object.keys(def.shape!);
    if (keys.some((key) => key in Object.prototype)) return this.fn("return false;"); // read via the prototype
    // Strip drops another key and strict refuses it; a catchall checks it.
    const other = def.catchall === undefined || defOf(def.catchall).type === "never"
      ? "false"
      : this.expr(def.catchall, "v[k]");
    const lines = ["if (!isJsonObject(v)) return false;", "let m;"];
    for (const key of keys) {
      const name = JSON.stringify(key);
      lines.push(`m = v[${name}];`);
      if (defOf(def.shape![key]).type !== "optional") {
        lines.push(`if (m === undefined && !Object.hasOwn(v, ${name})) return false; // zod might add it`);
      }
      lines.push(`if (!(${this.expr(def.shape![key], "m")})) return false;`);
    }
    const known = keys.map((key) => `k !== ${JSON.stringify(key)}`).join(" && ") || "true";
    lines.push(`for (const k in v) if (${known} && !(${other})) return false;`);
    return this.fn(lines.join("\n") + "\nreturn true;");
  }

  record(def: Def): string {
    const keyDef = defOf(def.keyType!);
    const key = keyDef.type === "string" ? this.expr(def.keyType!, "k") : "false";
    return this.fn(
      [
        "if (!isJsonObject(v) || Object.getOwnPropertySymbols(v).length > 0) return false;",
        "const keys = Object.getOwnPropertyNames(v); // zod reads the non-enumerable ones too",
        "for (let i = 0; i < keys.length; i++) {",
        `  const k = keys[i], e = v[k];`,
        `  if (k === "__proto__" || !(${key}) || !(${this.expr(def.valueType!, "e")})) return false;`,
        "}",
        "return true;",
      ].join("\n"),
    );
  }

  array(def: Def): string {
    const bounds = this.bounds(def, "v", "v.length");
    return this.fn(
      [
        `if (!Array.isArray(v)${
          bounds === null ? " || true" : bounds.map((b) => ` || !(${b})`).join("")
        }) return false;`,
        "for (let i = 0; i < v.length; i++) {",
        "  const e = v[i];",
        `  if (!(i in v) || !(${this.expr(def.element!, "e")})) return false;`,
        "}",
        "return true;",
      ].join("\n"),
    );
  }

  /** A discriminated union: the option its discriminator's value picks, as zod picks it. */
  union(def: Def): string {
    const tag = JSON.stringify(def.discriminator);
    const lines = ["if (!isJsonObject(v)) return false;", `const t = v[${tag}];`];
    for (const option of def.options!) {
      const tagSchema = defOf(option).shape?.[def.discriminator!];
      const values = tagSchema === undefined ? [] : defOf(tagSchema).values ?? [];
      lines.push(`if (${this.oneOf(values, "t")}) return ${this.expr(option, "v")};`);
    }
    return this.fn(lines.join("\n") + "\nreturn false;");
  }
}

/**
 * A fast one-sided check of `schema` (build it once per schema): yes only when the schema accepts the value
 * and would return it member for member; no leaves the decision to the schema.
 */
export function plainCheck<T>(schema: z.ZodType<T>): (value: unknown) => value is T {
  const compiler = new Compiler();
  const top = compiler.fn(`return ${compiler.expr(schema, "v")};`);
  const source = `${compiler.source.join("\n")}\nreturn ${top};`;
  return new Function("c", "isJsonObject", source)(compiler.constants, isJsonObject);
}

/**
 * `value` read through `schema`: as it is when `plain` accepts it (not copied), else `schema.parse`'s result
 * (or its error).
 */
export function readPlain<T>(schema: z.ZodType<T>, plain: (value: unknown) => boolean, value: unknown): T {
  return plain(value) ? value as T : schema.parse(value);
}
