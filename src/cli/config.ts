/**
 * Settings files: `capstan.json` in the working directory (the project) and the user's
 * `$XDG_CONFIG_HOME/capstan/config.json` (default `~/.config/capstan/config.json`). The project file wins over
 * the user file, and flags win over both. No secret belongs in either file: keys come from the environment
 * (`apiKeyEnv` names the variable to read for a `baseUrl` server), and `--yes` is deliberately not a setting,
 * so a cloned repository cannot grant itself permission to run shell commands. Nor can it send the user's
 * keys elsewhere: the project's file cannot set `apiKeyEnv`, and a `baseUrl` only it names gets no key.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ThinkingLevel } from "../core/model.js";
import { isThinkingLevel, THINKING_LEVELS } from "../core/model.js";

/** Keys a settings file may set. Every key is optional. */
export interface CliConfig {
	/** `provider/id` from the catalog, or a model id for `baseUrl`. */
	model?: string;
	/** An OpenAI-compatible server's base URL, e.g. `http://localhost:11434/v1`. */
	baseUrl?: string;
	/** Name of the environment variable holding the key for `baseUrl` (keyless when unset). */
	apiKeyEnv?: string;
	/** Context window of the `baseUrl` model, in tokens (default 32768). */
	contextWindow?: number;
	thinking?: ThinkingLevel;
	/** Write session files (default true). */
	session?: boolean;
	/** Where session files go, relative to the working directory (default `.capstan/sessions`). */
	sessionDir?: string;
	/** MCP servers whose tools join the workspace tools (`{ "<name>": { command, args } | { url } }`). */
	mcpServers?: Record<string, unknown>;
}

/** A settings file that cannot be used: exit code 2, with the file and key named. */
export class ConfigError extends Error {
	override readonly name = "ConfigError";
}

/** The loaded settings and where they came from. */
export interface LoadedConfig {
	config: CliConfig;
	/**
	 * The `baseUrl` only the project's file names (the user's own settings name another, or none): no key goes
	 * to it, or a cloned repository could send the user's keys to a server of its choosing.
	 */
	projectServer?: string;
	/** Files that were read, lowest precedence first. */
	files: string[];
	/** Non-fatal remarks, e.g. unknown keys. */
	warnings: string[];
}

/** The user settings file for this environment. */
export function userConfigPath(env: NodeJS.ProcessEnv): string {
	const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
	return join(base, "capstan", "config.json");
}

/**
 * Read the user file, then the project file over it. Missing files are fine; broken ones are errors.
 * `mcpFile` is the `--mcp` flag, if given.
 */
export function loadConfig(cwd: string, env: NodeJS.ProcessEnv, mcpFile?: string): LoadedConfig {
	const loaded: LoadedConfig = { config: {}, files: [], warnings: [] };
	const project = join(cwd, "capstan.json");
	// `--mcp capstan.json` starts the project's servers itself: no warning that the settings do not.
	const warnings = mcpFile !== undefined && resolve(cwd, mcpFile) === project ? [] : loaded.warnings;
	for (const path of [userConfigPath(env), project]) {
		const text = readIfExists(path);
		if (text === undefined) continue;
		loaded.files.push(path);
		const config = parseConfig(text, path, loaded.warnings);
		if (path === project) {
			withoutProjectServers(config, path, warnings);
			withoutProjectKeys(config, path, loaded);
		}
		Object.assign(loaded.config, config);
	}
	return loaded;
}

/**
 * Which secret goes to which server is the user's to say: a project's file may name a server (a local model,
 * a team's gateway) but not the variable whose key goes to it, and a server it alone names gets no key.
 */
function withoutProjectKeys(config: CliConfig, path: string, loaded: LoadedConfig): void {
	if (config.apiKeyEnv !== undefined) {
		delete config.apiKeyEnv;
		loaded.warnings.push(
			`${path}: "apiKeyEnv" ignored: a project's settings cannot choose which key is sent; set it in your own settings (${USER_SETTINGS_HINT})`,
		);
	}
	if (config.baseUrl !== undefined && config.baseUrl !== loaded.config.baseUrl)
		loaded.projectServer = config.baseUrl;
}

/** Where the user's own settings file lives, for messages. */
export const USER_SETTINGS_HINT =
	"$XDG_CONFIG_HOME/capstan/config.json, by default ~/.config/capstan/config.json";

/**
 * The project's file starts no MCP server: a stdio server is a command, run as soon as capstan starts, and a
 * URL server is somewhere the model's calls go, its read-only tools' without asking — a cloned repository
 * could run code or take what the agent reads. They start when the user asks, with `--mcp capstan.json`.
 */
function withoutProjectServers(config: CliConfig, path: string, warnings: string[]): void {
	const servers = config.mcpServers;
	if (servers === undefined) return;
	delete config.mcpServers;
	const names = Object.keys(servers);
	if (names.length === 0) return;
	warnings.push(
		`${path}: MCP servers ${names.map((name) => `"${name}"`).join(", ")} not started: a project's settings cannot start servers (a command runs code, a URL receives the agent's calls); pass --mcp capstan.json to start them`,
	);
}

function readIfExists(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
	}
}

/**
 * Whether `text` is an http(s) URL: `URL.canParse` alone accepts `localhost:11434/v1` (scheme "localhost:"),
 * which fetch then refuses as an unknown scheme, far from the setting that named it.
 */
export function isHttpUrl(text: string): boolean {
	return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

type Check = (value: unknown) => string | undefined;

const isString: Check = (v) => (typeof v === "string" && v !== "" ? undefined : "a non-empty string");
const CHECKS: Record<keyof CliConfig, Check> = {
	model: isString,
	baseUrl: (v) =>
		typeof v === "string" && isHttpUrl(v)
			? undefined
			: "an http:// or https:// URL, as in http://localhost:11434/v1",
	apiKeyEnv: isString,
	contextWindow: (v) => (Number.isInteger(v) && (v as number) > 0 ? undefined : "a positive integer"),
	thinking: (v) => (isThinkingLevel(v) ? undefined : `one of ${THINKING_LEVELS.join(", ")}`),
	session: (v) => (typeof v === "boolean" ? undefined : "true or false"),
	sessionDir: isString,
	// The entries are checked when the servers are started (cli/mcp.ts), with the server and field named.
	mcpServers: (v) =>
		typeof v === "object" && v !== null && !Array.isArray(v) ? undefined : "an object of servers",
};

/** Validate one file's JSON. Exported for tests of the messages. */
export function parseConfig(text: string, path: string, warnings: string[]): CliConfig {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
	}
	if (typeof value !== "object" || value === null || Array.isArray(value))
		throw new ConfigError(`${path} must hold a JSON object`);
	const config: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value)) {
		if (!Object.hasOwn(CHECKS, key)) {
			const near = nearestSetting(key);
			const hint = /key|token|secret/i.test(key)
				? " (keys belong in the environment, not in files)"
				: near
					? ` (did you mean "${near}"?)`
					: "";
			warnings.push(`${path}: unknown setting "${key}" ignored${hint}`);
			continue;
		}
		const problem = CHECKS[key as keyof CliConfig](entry);
		if (problem) throw new ConfigError(`${path}: "${key}" must be ${problem}`);
		config[key] = entry;
	}
	return config as CliConfig;
}

/** The known setting `key` is a typo of (case, or at most two letters off), if any. */
function nearestSetting(key: string): string | undefined {
	return Object.keys(CHECKS).find(
		(name) => name.toLowerCase() === key.toLowerCase() || editDistance(name, key) <= 2,
	);
}

/** Levenshtein distance: the fewest inserted, deleted or changed characters that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			const change = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
			current.push(Math.min(change, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
		}
		previous = current;
	}
	return previous[b.length] ?? 0;
}
