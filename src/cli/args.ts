/**
 * The command line of `capstan`, parsed with `node:util` `parseArgs` (strict: an unknown flag is a usage
 * error, not silently ignored). Parsing only reads the words; what they mean is decided in `main.ts`.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from "../core/model.js";

/** The modes the command runs in. */
export type CliMode = "interactive" | "print" | "json" | "rpc";

/** Everything the command line says, before config files and the environment are consulted. */
export interface CliArgs {
	/** `-p/--print`, `--json` or `--rpc` given explicitly; undefined means "decide from the terminal". */
	mode: CliMode | undefined;
	/** The prompt from the positional words, if any. */
	prompt: string | undefined;
	model: string | undefined;
	baseUrl: string | undefined;
	apiKey: string | undefined;
	thinking: ThinkingLevel | undefined;
	yes: boolean;
	/** false with `--no-session`; undefined when not given (config decides, default on). */
	session: boolean | undefined;
	sessionDir: string | undefined;
	resume: string | undefined;
	continue: boolean;
	/** Force the scripted demo even when a key is set. */
	demo: boolean;
	/** `--mcp FILE`: an `{ "mcpServers": ... }` file whose servers' tools join the workspace tools. */
	mcp: string | undefined;
	help: boolean;
	version: boolean;
}

/** A command line that cannot be run: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
	override readonly name = "UsageError";
}

/** Parse `argv` (without the node and script paths). Throws {@link UsageError} on a bad command line. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
	let parsed: ReturnType<typeof parse>;
	try {
		parsed = parse(argv);
	} catch (error) {
		throw new UsageError(
			unknownFlagText(argv, error) ??
				flagValueText(argv, error) ??
				(error instanceof Error ? error.message : String(error)),
		);
	}
	const empty = emptyValueFlag(parsed.values);
	if (empty !== undefined)
		throw new UsageError(`${needsText(empty)} (got an empty value)${FLAG_VALUES[empty].how}`);
	const { values, positionals } = parsed;
	const modes = (["print", "json", "rpc"] as const).filter((name) => values[name]);
	if (values.json && values.print) modes.splice(modes.indexOf("print"), 1); // `-p --json` is JSON mode
	if (modes.length > 1) throw new UsageError(`choose one mode: --${modes.join(" or --")}`);
	if (values.thinking !== undefined && !isThinkingLevel(values.thinking))
		throw new UsageError(
			`--thinking must be one of ${THINKING_LEVELS.join(", ")} (got "${values.thinking}")`,
		);
	if (values.resume !== undefined && values.continue)
		throw new UsageError("--resume and --continue both pick a session: use one");
	if (values["no-session"] && (values.resume !== undefined || values.continue))
		throw new UsageError("--no-session cannot be combined with --resume or --continue");
	const prompt = positionals.join(" ").trim();
	if (values.rpc && prompt !== "")
		throw new UsageError("--rpc takes its prompts as commands on stdin, not as arguments");
	return {
		mode: modes[0],
		prompt: prompt === "" ? undefined : prompt,
		model: values.model,
		baseUrl: values["base-url"],
		apiKey: values["api-key"],
		thinking: values.thinking as ThinkingLevel | undefined,
		yes: values.yes ?? false,
		session: values["no-session"] ? false : undefined,
		sessionDir: values["session-dir"],
		resume: values.resume,
		continue: values.continue ?? false,
		demo: values.demo ?? false,
		mcp: values.mcp,
		help: values.help ?? false,
		version: values.version ?? false,
	};
}

/** The flags, for both parses: the strict one and the one that names an unknown flag (each is in {@link HELP}). */
export const OPTIONS = {
	print: { type: "boolean", short: "p" },
	json: { type: "boolean" },
	rpc: { type: "boolean" },
	model: { type: "string", short: "m" },
	"base-url": { type: "string" },
	"api-key": { type: "string" },
	thinking: { type: "string" },
	yes: { type: "boolean", short: "y" },
	"no-session": { type: "boolean" },
	"session-dir": { type: "string" },
	resume: { type: "string", short: "r" },
	continue: { type: "boolean", short: "c" },
	demo: { type: "boolean" },
	mcp: { type: "string" },
	help: { type: "boolean", short: "h" },
	version: { type: "boolean", short: "v" },
} as const satisfies ParseArgsConfig["options"];

/**
 * Node's own text for an unknown flag points to `--` as if a prompt were meant, with an unbalanced quote: the
 * flag is named here, and the `--` way shown as a whole command.
 */
function unknownFlagText(argv: readonly string[], error: unknown): string | undefined {
	if ((error as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return undefined;
	const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, tokens: true });
	const unknown = tokens.find((token) => token.kind === "option" && !Object.hasOwn(OPTIONS, token.name));
	if (unknown?.kind !== "option") return undefined;
	return `unknown flag ${unknown.rawName} (a prompt that starts with "-" goes after --, as in: capstan -- "${unknown.rawName}")`;
}

/** What each flag that takes a value wants, and how it is given, for a value that is missing or empty. */
const FLAG_VALUES = {
	model: {
		wants: "a model (PROVIDER/ID from the catalog, or the --base-url server's id)",
		how: ", as in: capstan --model anthropic/claude-sonnet-4-5",
	},
	"base-url": {
		wants: "the URL of an OpenAI-compatible server",
		how: ", as in: capstan --base-url http://localhost:11434/v1",
	},
	"api-key": {
		wants: "a key",
		how: ", though the environment is the better place for it (ANTHROPIC_API_KEY, OPENAI_API_KEY, …)",
	},
	thinking: { wants: `a level: ${THINKING_LEVELS.join(", ")}`, how: ", as in: capstan --thinking high" },
	"session-dir": { wants: "a folder", how: ", as in: capstan --session-dir .capstan/sessions" },
	resume: { wants: "a session file", how: ", as in: capstan --resume .capstan/sessions/<file>.jsonl" },
	mcp: { wants: 'a file with {"mcpServers": {...}}', how: ", as in: capstan --mcp capstan.json" },
} as const satisfies Record<ValueFlag, { wants: string; how: string }>;

type ValueFlag = {
	[Name in keyof typeof OPTIONS]: (typeof OPTIONS)[Name]["type"] extends "string" ? Name : never;
}[keyof typeof OPTIONS];

function isValueFlag(name: string): name is ValueFlag {
	return Object.hasOwn(FLAG_VALUES, name);
}

function needsText(name: ValueFlag): string {
	return `--${name} needs ${FLAG_VALUES[name].wants}`;
}

/**
 * Node's text for a flag without its value ("Option '-m, --model <value>' argument missing", or "argument is
 * ambiguous" when the next word is a flag) names neither what the flag wants nor how to give it: both are said
 * here, as is a value given to a flag that takes none (`--print=yes`).
 */
function flagValueText(argv: readonly string[], error: unknown): string | undefined {
	if ((error as { code?: unknown }).code !== "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") return undefined;
	const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, tokens: true });
	for (const token of tokens) {
		if (token.kind !== "option") continue;
		if (!isValueFlag(token.name)) {
			if (token.value !== undefined)
				return `--${token.name} takes no value (got ${token.rawName}=${token.value})`;
			continue;
		}
		// Without `=`, a word that starts with "-" is taken for the next flag, not for this one's value.
		if (token.value === undefined || (!token.inlineValue && token.value.startsWith("-"))) {
			const dash =
				token.value === undefined
					? ""
					: ` (the next word, ${token.value}, is a flag; a value that starts with "-" is written --${token.name}=${token.value})`;
			return `${needsText(token.name)}${FLAG_VALUES[token.name].how}${dash}`;
		}
	}
	return undefined;
}

/** A flag given an empty value (`--model=`, `--session-dir ""`): it would be taken for a real one. */
function emptyValueFlag(values: Partial<Record<string, string | boolean>>): ValueFlag | undefined {
	for (const [name, value] of Object.entries(values))
		if (isValueFlag(name) && typeof value === "string" && value.trim() === "") return name;
	return undefined;
}

function parse(argv: readonly string[]) {
	return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
}

/** The `--help` text. */
export const HELP = `capstan — a coding agent on the capstan agent loop

Usage:
  capstan                       interactive on a terminal (/help there lists its commands and keys)
  capstan "prompt"              one run, shown as a readable trace on a terminal (as with -p
                                otherwise)
  capstan -p "prompt"           print the final answer and exit (-p is --print); without "prompt",
                                the prompt is read from stdin (a prompt given as words leaves stdin
                                unread: to add a file,
                                { echo "Review this:"; git diff; } | capstan -p)
  capstan -p "prompt" --json    every AgentEvent as one JSON line
  capstan --rpc                 JSON-line commands on stdin, events and responses on stdout
                                (docs/rpc.md)
  capstan -- "-prompt"          a prompt that starts with "-" goes after --

With no API key and no --base-url (or with --demo), capstan runs its scripted demo: the same loop
and tools on a scripted model, in a fresh temporary directory. It plays its own script whatever the
prompt, and shows its trace even with -p.

Models:
  -m, --model PROVIDER/ID       a catalog model, e.g. anthropic/claude-sonnet-4-5,
                                openai/gpt-5-mini, google/gemini-2.5-flash (default: picked from the
                                API keys in the environment: ANTHROPIC_API_KEY →
                                anthropic/claude-opus-5-5, then OPENAI_API_KEY → openai/gpt-5-mini,
                                then GEMINI_API_KEY/GOOGLE_API_KEY → google/gemini-2.5-flash)
  --base-url URL                an OpenAI-compatible server, e.g. http://localhost:11434/v1 (Ollama,
                                llama-server, vLLM, LM Studio); --model names its model id (default:
                                the first the server lists)
  --api-key KEY                 the key for --model's provider or the --base-url server; discouraged
                                (visible in the process list): prefer the environment
  --thinking LEVEL              off, minimal, low, medium, high, xhigh (default: off)
  --demo                        run the scripted demo even when a key is set

Tools and sessions:
  -y, --yes                     run the tools that ask first (write_file, edit_file, shell, and MCP
                                tools not marked read-only) without asking
  --mcp FILE                    add the tools of the MCP servers in FILE ({"mcpServers": {...}});
                                they ask before running unless the server marks them read-only
  --no-session                  do not write a session file
  --session-dir DIR             where sessions go (default .capstan/sessions)
  -c, --continue                continue the latest session of this directory
  -r, --resume FILE             continue a session file

  -h, --help                    this text
  -v, --version                 the version

Settings may also come from capstan.json in the working directory or from
$XDG_CONFIG_HOME/capstan/config.json (default ~/.config/capstan/config.json); flags win.
Exit codes: 0 done, 1 the run ended in an error, 2 bad usage or configuration, 130 interrupted.
`;
