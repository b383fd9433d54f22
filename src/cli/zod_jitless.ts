/**
 * Puts zod in its "jitless" mode for the whole process: schemas validate through their ordinary parsers
 * instead of generating and compiling a specialised parser (`new Function`) per object schema at its first
 * parse. The results and the issues are the same; a run pays no compile per schema (about a hundred schemas
 * of which most parse a handful of values), which measured faster both for short runs (4 questions: about
 * −9% CPU) and for the 660-call benchmark run. It takes effect for schemas built after it runs, so main.ts
 * imports it before any command's modules.
 *
 * @module
 */
import { z } from "zod";

z.config({ jitless: true });
