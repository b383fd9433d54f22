/**
 * Puts zod in its "jitless" mode for the whole process: schemas validate through their ordinary parsers
 * instead of compiling a specialised parser (`new Function`) per object schema at its first parse. Same
 * results and issues, no compile per schema (most parse only a handful of values). It affects schemas built
 * after it runs, so main.ts imports it before any command's modules.
 *
 * @module
 */
import { z } from "zod";

z.config({ jitless: true });
