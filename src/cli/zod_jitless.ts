/**
 * Puts zod in "jitless" mode for the process: no `new Function` parser compiled per object schema (same
 * results; most parse a handful of values). It affects schemas built after it, so main.ts imports it first.
 * @module
 */
import { z } from "zod";

z.config({ jitless: true });
