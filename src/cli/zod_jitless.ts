/**
 * Puts zod in "jitless" mode (no `new Function` per object schema) for schemas built after it: main.ts first.
 * @module
 */
import { z } from "zod";

z.config({ jitless: true });
