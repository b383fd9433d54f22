/**
 * The model options every run command shares (`--reference`, `--live`, `--env-file`, transport settings).
 * @module
 */
import { z } from "zod";
import { intOption } from "./numbers.ts";
import { DEFAULT_MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES_LIMIT } from "../models/response_body.ts";

/** The largest value each numeric model option accepts. */
export const MODEL_OPTION_MAX = {
  concurrency: 256,
  "timeout-ms": 86_400_000, // one day; also far below the timer's 2^31-1 ms limit
  "max-retries": 20,
  "max-response-bytes": MAX_RESPONSE_BYTES_LIMIT,
  "decision-batch": 10_000,
  "reference-delay-ms": 3_600_000,
} as const;

export const MODEL_OPTION_HELP =
  `  --reference          use the built-in deterministic reference model (offline, a weak baseline)
  --live               call the configured providers (LLM_API_KEY, LLM_BASE_URL, DECISION_MODEL_API_KEY, …)
  --model NAME         chat model for --live (default qwen3.8-max)
  --env-file PATH      read credentials from a .env file
  --concurrency N      requests in flight per endpoint (default 4, at most ${MODEL_OPTION_MAX.concurrency})
  --timeout-ms N       per-request timeout (default 120000, at most ${MODEL_OPTION_MAX["timeout-ms"]})
  --max-retries N      retries of a failed request: 408/409/429/5xx and network errors (default 3, at most ${
    MODEL_OPTION_MAX["max-retries"]
  })
  --max-response-bytes N  the most bytes a provider's response body may have: read incrementally, a body
                       past it is cut off and fails its call (default ${DEFAULT_MAX_RESPONSE_BYTES} = 8 MiB, at most ${
    MODEL_OPTION_MAX["max-response-bytes"]
  })
  --decision-batch N   questions per System One request at most (default 256, at most ${
    MODEL_OPTION_MAX["decision-batch"]
  }; bodies stay under 32 MiB)
  --no-enable-thinking-field   do not send enable_thinking:false (for servers that reject it)
  --no-chat-template-kwargs    do not send chat_template_kwargs (for servers that reject it)
  --reference-delay-ms N       with --reference: answer after a fixed delay (benchmarks; at most ${
    MODEL_OPTION_MAX["reference-delay-ms"]
  })`;

export const ModelOptionsShape = {
  reference: z.boolean().optional(),
  live: z.boolean().optional(),
  model: z.string().min(1).optional(),
  "env-file": z.string().optional(),
  concurrency: intOption(1, MODEL_OPTION_MAX.concurrency).optional(),
  "timeout-ms": intOption(1, MODEL_OPTION_MAX["timeout-ms"]).optional(),
  "max-retries": intOption(0, MODEL_OPTION_MAX["max-retries"]).optional(),
  "max-response-bytes": intOption(1024, MODEL_OPTION_MAX["max-response-bytes"]).optional(),
  "decision-batch": intOption(1, MODEL_OPTION_MAX["decision-batch"]).optional(),
  "no-enable-thinking-field": z.boolean().optional(),
  "no-chat-template-kwargs": z.boolean().optional(),
  "reference-delay-ms": intOption(0, MODEL_OPTION_MAX["reference-delay-ms"]).optional(),
};
