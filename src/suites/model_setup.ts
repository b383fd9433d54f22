/**
 * Model set-up shared by every run command: `--reference` starts the deterministic reference model on a
 * loopback port; `--live` (the only way a run reaches a provider) uses the configured ones; `--check-only`
 * sends nothing.
 * @module
 */
import { UsageError } from "../errors.ts";
import { refuseModelOptionsIgnoredBy } from "../core/option_rules.ts";
import { OpenAIChatClient } from "../models/chat_client.ts";
import { chatCredentials, decisionCredentials, loadCredentialEnvironment } from "../models/credentials.ts";
import { SystemOneClient } from "../models/decision_client.ts";
import type { ChatModel, DecisionModel } from "../models/types.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { type NamedSecret, shortSecretNames, shortSecretNotice } from "../core/secrets.ts";
import type { ChatEndpoint } from "../models/loopback_proxy.ts";

/** Validated model options. */
export type ModelOptions = {
  reference?: boolean;
  live?: boolean;
  model?: string;
  "env-file"?: string;
  concurrency?: number;
  "timeout-ms"?: number;
  "max-retries"?: number;
  "max-response-bytes"?: number;
  "decision-batch"?: number;
  "no-enable-thinking-field"?: boolean;
  "no-chat-template-kwargs"?: boolean;
  "reference-delay-ms"?: number;
};

/** What the suites get: the two models, a description for the protocol, and a way to shut down. */
export interface ModelSetup {
  chat: ChatModel;
  decision: DecisionModel;
  /** Recorded in protocol.json and the report (never secrets). */
  description: {
    mode: "reference" | "live" | "check-only";
    chat_model: string;
    decision_model: string;
    note: string;
  };
  /** The run's provider keys, by variable: no option may hold one, no response may carry one. */
  secrets: NamedSecret[];
  /** Where the loopback endpoint forwards outside engines' calls; none in check-only. */
  chatEndpoint?: ChatEndpoint;
  close(): Promise<void>;
}

/** A check-only model's call: a bug, since nothing may be sent. */
function refused(what: string): () => never {
  return () => {
    throw new Error(`check-only: a ${what} request was about to be sent`);
  };
}

/** Checks the mode flags: exactly one of --reference and --live, none with --check-only. */
function modelMode(options: ModelOptions, checkOnly: boolean): "reference" | "live" | "check-only" {
  if (checkOnly) {
    if (options.live) throw new UsageError("--check-only sends nothing: do not combine it with --live");
    refuseModelOptionsIgnoredBy("check-only", options);
    return "check-only";
  }
  if (options.reference && options.live) {
    throw new UsageError("choose one of --reference and --live, not both");
  }
  if (!options.reference && !options.live) {
    throw new UsageError("choose --reference (offline reference model) or --live (calls real providers)");
  }
  const mode = options.reference ? "reference" : "live";
  refuseModelOptionsIgnoredBy(mode, options);
  return mode;
}

/** Sets up the models for a run. */
export async function setupModels(
  options: ModelOptions,
  counter: TokenCounter,
  checkOnly = false,
  frozenProtocol?: unknown,
): Promise<ModelSetup> {
  const mode = modelMode(options, checkOnly);
  const common = {
    concurrency: options.concurrency,
    timeoutMs: options["timeout-ms"],
    maxResponseBytes: options["max-response-bytes"],
  };
  const chatTransport = { ...common, maxRetries: options["max-retries"] };
  const decisionTransport = {
    ...common,
    maxAttempts: options["max-retries"] === undefined ? undefined : options["max-retries"] + 1,
    maxQuestionsPerBatch: options["decision-batch"],
  };
  if (mode === "check-only") {
    // Keys name the models that made the frozen artifacts, so check-only rebuilds them under the same names.
    const frozen =
      (frozenProtocol as { models?: { chat_model?: string; decision_model?: string } } | undefined)
        ?.models;
    return {
      chat: { model: "none (check-only)", complete: refused("chat") },
      decision: { model: "none (check-only)", ask: refused("decision") },
      description: {
        mode,
        chat_model: frozen?.chat_model ?? "none",
        decision_model: frozen?.decision_model ?? "none",
        note: "check-only: nothing is sent",
      },
      secrets: [],
      close: () => Promise.resolve(),
    };
  }
  if (mode === "reference") {
    // Imported only here: a live run does not load the reference model and its HTTP server.
    const { REFERENCE_CHAT_MODEL, REFERENCE_DECISION_MODEL, startReferenceServer } = await import(
      "../models/reference/server.ts"
    );
    const server = await startReferenceServer({ counter, delayMs: options["reference-delay-ms"] });
    const apiKey = "reference-model-no-key";
    const baseURL = server.baseUrl;
    return {
      chat: new OpenAIChatClient({ apiKey, baseURL, model: REFERENCE_CHAT_MODEL, ...chatTransport }),
      decision: new SystemOneClient({
        apiKey,
        baseURL,
        model: REFERENCE_DECISION_MODEL,
        ...decisionTransport,
      }),
      description: {
        mode,
        chat_model: REFERENCE_CHAT_MODEL,
        decision_model: REFERENCE_DECISION_MODEL,
        note: "built-in deterministic reference model: an honest but weak extractive baseline, not an LLM",
      },
      secrets: [],
      chatEndpoint: { baseURL: server.baseUrl, apiKey, model: REFERENCE_CHAT_MODEL },
      close: () => server.close(),
    };
  }
  const environment = await loadCredentialEnvironment(options["env-file"]);
  const chatCreds = chatCredentials(environment);
  const decisionCreds = decisionCredentials(environment);
  const secrets: NamedSecret[] = [
    { name: "LLM_API_KEY", value: chatCreds.apiKey },
    { name: "DECISION_MODEL_API_KEY", value: decisionCreds.apiKey },
  ];
  // Said once: a short key (`x`, `EMPTY`) is never redacted, since it would rewrite ordinary text.
  const short = shortSecretNames(secrets);
  if (short.length > 0) console.error(shortSecretNotice(short));
  const chat = new OpenAIChatClient({
    secrets,
    apiKey: chatCreds.apiKey,
    baseURL: chatCreds.baseURL,
    model: options.model,
    sendEnableThinking: !options["no-enable-thinking-field"],
    sendChatTemplateKwargs: !options["no-chat-template-kwargs"],
    ...chatTransport,
  });
  return {
    chat,
    decision: new SystemOneClient({
      secrets,
      apiKey: decisionCreds.apiKey,
      baseURL: decisionCreds.baseURL,
      model: decisionCreds.model,
      ...decisionTransport,
    }),
    description: {
      mode,
      chat_model: chat.model,
      decision_model: decisionCreds.model,
      note: "live providers",
    },
    secrets,
    chatEndpoint: { baseURL: chatCreds.baseURL, apiKey: chatCreds.apiKey, model: chat.model, secrets },
    close: () => Promise.resolve(),
  };
}
