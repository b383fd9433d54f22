/**
 * The help lines of the collection modes of `hotpot collect`.
 * @module
 */
import { DEFAULT_AGENT_TIMEOUT_S } from "../../suites/hotpot/collect/collect_mode.ts";

export const COLLECTION_MODE_HELP =
  `  --scripted           deterministic real read_file calls by this program (not an agent)
  --live               an agent loop with the chat model (needs the --live credentials)
  --hermes-sessions DIR  import Hermes session JSON files named <question id>.json
  --hermes DIR [--hermes-python PY]   the real Hermes Agent (a checkout in DIR, run by PY, default
                       python3) through adapters/hermes_collect.py: the same as --agent exec:'PY
                       adapters/hermes_collect.py --hermes DIR' (with --reference or --live for its model)
  --agent exec:'CMD'   an outside agent: CMD runs in the question's workspace, reads {question, files,
                       titles, task, workspace} as JSON on stdin and prints a Hermes-format session on stdout
                       (adapters/hermes_collect.py runs the real Hermes Agent this way)
  --agent-timeout S    seconds per question for --agent (default ${DEFAULT_AGENT_TIMEOUT_S})
  --agent-system-prompt FILE   for --agent: a system prompt handed to the agent as system_prompt (default:
                       none; the agent uses its own, which is what the protocol records)
  --agent-env NAME     repeatable, for --agent: pass this variable to the agent (it otherwise sees only
                       PATH, HOME, LANG and TMPDIR); the way to hand an agent a key: a key inside --agent
                       or any other option is refused. Short values (under 8 characters: EMPTY, ollama)
                       are never redacted and never promised secret
  --agent ... --reference | --live   the agent's chat model: this program's loopback endpoint forwards
                       to the reference model (or the --live one); the agent gets LLM_BASE_URL, LLM_MODEL
                       and a per-question token as LLM_API_KEY, and its calls are recorded`;
