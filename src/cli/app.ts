/**
 * The `capstan` command's agent, assembled from the parsed flags, the settings files and the environment:
 * the model (or the scripted demo), the workspace tools with the approval hook, the system prompt, the
 * session file. `CliApp` is the {@link InteractiveHost} every mode drives — print, JSON, RPC and the TTY.
 */
import { resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import type { Model, RetryInfo, StreamFunction, ThinkingLevel } from "../core/model.js";
import { registryStream } from "../edge/defaults.js";
import type { McpConnection } from "../mcp/index.js";
import type { AgentEvent } from "../protocol/events.js";
import { MODELS } from "../providers/models.js";
import type { AgentTool } from "../tools/types.js";
import { createWorkspaceTools, environmentWithoutKeys, MUTATING_TOOLS } from "../workspace/index.js";
import { ApprovalDesk, type ApprovalPolicy, askBeforeRunning } from "./approval.js";
import type { CliArgs } from "./args.js";
import type { CliConfig } from "./config.js";
import {
	type AutoplayReporter,
	autoplayDemo,
	createDemoSandbox,
	DEMO_TEXT,
	type DemoSandbox,
	demoModel,
	LONG_TOOL,
	removeDemoSandbox,
	watchBuildTool,
} from "./demo.js";
import type { InteractiveHost, ModelDescription, ScriptedDemoInfo, ToolApprover } from "./host.js";
import { attachMcpTools, mcpServersFor } from "./mcp.js";
import {
	catalogSpecs,
	keyFor,
	type ModelChoice,
	ModelError,
	modelSpec,
	onSameServer,
	requireKey,
	resolveModel,
	type ScopedKey,
	shownBaseUrl,
	switchModel,
} from "./models.js";
import { adviceFor } from "./outcome.js";
import { type CliSessions, checkSessionFolder, openSessions } from "./session.js";
import { codingSystemPrompt } from "./system-prompt.js";
import { terminalText } from "./terminal-text.js";

/** Default session folder, relative to the working directory. */
export const DEFAULT_SESSION_DIR = ".capstan/sessions";

/** What {@link CliApp.create} needs. */
export interface AppInput {
	args: CliArgs;
	config: CliConfig;
	/** The directory the command was started in. */
	cwd: string;
	version: string;
	/** Told what the unattended demo does as it queues its messages. */
	demoReporter?: AutoplayReporter;
	/** Told of a problem the command goes on through (a session file that can no longer be written). */
	warn?: (text: string) => void;
	/** The `baseUrl` only the project's settings name (`LoadedConfig.projectServer`): no key goes to it. */
	projectServer?: string | undefined;
}

/** The pieces {@link CliApp.create} assembles. */
interface AppParts {
	agent: Agent;
	cwd: string;
	version: string;
	sessions: CliSessions;
	policy: ApprovalPolicy;
	desk: ApprovalDesk;
	/** The `--api-key` key, bound to the server of the model it was given with. */
	key: ScopedKey | undefined;
	/** The `--base-url` server's model, when there is one. */
	server: Model | undefined;
	retryListeners: Set<(info: RetryInfo) => void>;
	warningListeners: Set<(text: string) => void>;
	scripted: ScriptedDemoInfo | undefined;
	mcp: McpConnection | undefined;
	sandbox: DemoSandbox | undefined;
}

/** The assembled command: an {@link InteractiveHost} plus what the other modes need. */
export class CliApp implements InteractiveHost {
	readonly scripted?: ScriptedDemoInfo;
	readonly agent: Agent;
	readonly cwd: string;
	readonly version: string;
	readonly sessions: CliSessions;

	private constructor(private readonly parts: AppParts) {
		this.agent = parts.agent;
		this.cwd = parts.cwd;
		this.version = parts.version;
		this.sessions = parts.sessions;
		if (parts.scripted) this.scripted = parts.scripted;
	}

	/** Resolve the model and build the agent, its tools and its session file. Throws ModelError/ConfigError. */
	static async create(input: AppInput): Promise<CliApp> {
		const { args, config } = input;
		const baseUrl = args.baseUrl ?? config.baseUrl;
		const choice = await resolveModel({
			model: args.model ?? config.model,
			baseUrl,
			apiKey: args.apiKey,
			apiKeyEnv: config.apiKeyEnv,
			contextWindow: config.contextWindow,
			demo: args.demo,
			keyless: args.baseUrl === undefined && baseUrl !== undefined && baseUrl === input.projectServer,
		});
		// The demo never touches the user's project: its tools, and its sessions unless a folder is named, live
		// in a fresh temporary directory, removed when the command ends.
		const sandbox = choice.kind === "scripted" ? await createDemoSandbox() : undefined;
		try {
			return new CliApp(await assemble(input, choice, sandbox, baseUrl !== undefined));
		} catch (error) {
			if (sandbox) removeDemoSandbox(sandbox);
			throw error;
		}
	}

	/** Resolves once no run is active and every approval a run paused on is answered (rule T15, T16). */
	idle(): Promise<void> {
		return this.parts.desk.idle();
	}

	/** Close the MCP servers' connections (stdio servers are stopped) and remove the demo's sandbox. */
	async close(): Promise<void> {
		await this.parts.mcp?.close();
		this.removeSandbox();
	}

	/**
	 * What {@link close} does, synchronously, for a process that exits now (a forced exit on a second signal, a
	 * closed output pipe): stdio MCP servers are sent SIGTERM rather than closed, and the demo's sandbox removed.
	 */
	closeNow(): void {
		this.parts.mcp?.terminate();
		this.removeSandbox();
	}

	/** Remove the demo's sandbox. */
	private removeSandbox(): void {
		if (this.parts.sandbox) removeDemoSandbox(this.parts.sandbox);
	}

	/** Tell `listener` of every provider retry; returns the unsubscribe. */
	onRetry(listener: (info: RetryInfo) => void): () => void {
		this.parts.retryListeners.add(listener);
		return () => this.parts.retryListeners.delete(listener);
	}

	/**
	 * Take the command's warnings (a session file that can no longer be written) instead of `AppInput.warn`
	 * while `listener` is installed; returns the uninstall. The TTY mode prints them in its transcript: written
	 * to stderr, a warning would land inside its live region, which the next redraw erases.
	 */
	onWarning(listener: (text: string) => void): () => void {
		this.parts.warningListeners.add(listener);
		return () => this.parts.warningListeners.delete(listener);
	}

	/** True with `--yes` (or in the demo's sandbox). */
	get autoApprove(): boolean {
		return this.parts.policy.autoApprove;
	}

	setApprover(approver: ToolApprover | undefined): void {
		this.parts.policy.approver = approver;
	}

	describeModel(): ModelDescription {
		const { model, thinkingLevel } = this.agent.state;
		const description: ModelDescription = {
			provider: model.provider,
			id: model.id,
			spec: modelSpec(model),
			thinkingLevel,
			contextWindow: model.contextWindow,
			scripted: this.scripted !== undefined,
		};
		// Shown in RPC output and the interactive header: never with its credentials (rule E3).
		if (model.baseUrl !== undefined && !isCatalogBaseUrl(model))
			description.baseUrl = shownBaseUrl(model.baseUrl);
		return description;
	}

	listModels(): string[] {
		const { server } = this.parts;
		const first = [this.agent.state.model, ...(server ? [server] : [])].map(modelSpec);
		return [...new Set([...first, ...catalogSpecs()])];
	}

	setModel(spec: string): void {
		if (this.scripted)
			throw new ModelError("the scripted demo has no other model: set an API key or --base-url");
		const { server, key } = this.parts;
		const model = switchModel(spec, { current: this.agent.state.model, server });
		requireKey(model, keyFor(key, model));
		this.agent.setModel(model);
		// The server's model last chosen is the one `listModels` offers to go back to.
		if (server && onSameServer(model, server)) this.parts.server = model;
	}

	setThinking(level: ThinkingLevel): void {
		this.agent.setThinkingLevel(level);
	}

	explainEnd(event: Extract<AgentEvent, { type: "agent_end" }>): string | undefined {
		return adviceFor(event);
	}
}

/** Build the agent around the resolved model (or the demo's scripted one) and open its sessions. */
async function assemble(
	input: AppInput,
	choice: ModelChoice,
	sandbox: DemoSandbox | undefined,
	hasServer: boolean,
): Promise<AppParts> {
	const { args, config, version } = input;
	const scripted = choice.kind === "scripted";
	const cwd = sandbox?.project ?? input.cwd;
	const policy: ApprovalPolicy = { autoApprove: scripted || args.yes, approver: undefined };
	const enabled = args.session ?? config.session ?? true;
	const dir = resolve(
		input.cwd,
		args.sessionDir ?? config.sessionDir ?? sandbox?.sessions ?? DEFAULT_SESSION_DIR,
	);
	// Before any MCP server starts: a session folder that cannot be used ends the command (exit 2) at once.
	if (enabled) checkSessionFolder(dir);
	const warningListeners = new Set<(text: string) => void>();
	const fallback =
		input.warn ?? ((text: string) => void process.stderr.write(terminalText(`capstan: ${text}\n`)));
	const warn = (text: string) => {
		if (warningListeners.size === 0) fallback(text);
		for (const listener of warningListeners) listener(text);
	};
	const { tools, mcp } = await toolsFor(input, cwd, policy, scripted, warn);
	const { model, streamFn, key } = connect(choice, args.apiKey);
	// Provider retries (rule A8) reach whichever mode listens: the TTY shows each with its wait.
	const retryListeners = new Set<(info: RetryInfo) => void>();
	const agent = new Agent({
		model,
		...(streamFn ? { streamFn } : {}),
		systemPrompt: codingSystemPrompt(cwd, tools, policy.autoApprove),
		thinkingLevel: args.thinking ?? config.thinking ?? (scripted ? "medium" : "off"),
		tools,
		streamOptions: {
			onRetry: (info) => {
				for (const listener of retryListeners) listener(info);
			},
		},
	});
	return {
		agent,
		cwd,
		version,
		sessions: await openSessions({
			agent,
			enabled,
			dir,
			cwd,
			version,
			warn,
		}),
		policy,
		desk: new ApprovalDesk(agent, policy),
		key,
		server: hasServer && !scripted ? model : undefined,
		retryListeners,
		warningListeners,
		scripted:
			choice.kind === "scripted" ? demoInfo(agent, cwd, choice.reason, input.demoReporter) : undefined,
		mcp,
		sandbox,
	};
}

/**
 * The workspace tools (mutating ones asking first, rule T14), the demo's long tool, and the MCP servers' tools;
 * what their listings leave out, or a re-listing that fails, goes to `warn`.
 */
async function toolsFor(
	input: AppInput,
	cwd: string,
	policy: ApprovalPolicy,
	scripted: boolean,
	warn: (text: string) => void,
): Promise<{ tools: AgentTool[]; mcp: McpConnection | undefined }> {
	const { args, config } = input;
	// The shell must not see the variable the settings name as holding the server's key (nor any *_API_KEY).
	const env = environmentWithoutKeys(process.env, config.apiKeyEnv ? [config.apiKeyEnv] : []);
	// --yes is read at each call, so the policy decides when a mutating tool runs.
	const tools: AgentTool[] = createWorkspaceTools({ cwd, shell: { env } }).map((tool) =>
		MUTATING_TOOLS.has(tool.name) ? askBeforeRunning(tool, policy) : tool,
	);
	if (scripted) tools.push(watchBuildTool());
	const servers = await mcpServersFor(config.mcpServers, args.mcp, input.cwd);
	if (!servers) return { tools, mcp: undefined };
	const confirm = new Set(MUTATING_TOOLS);
	const mcp = await attachMcpTools(servers, tools, confirm, {
		guard: (tool) => askBeforeRunning(tool, policy),
		warn,
	});
	return { tools, mcp };
}

/** The model and how its requests go out: the demo's script, or the providers with the `--api-key` key scoped. */
function connect(
	choice: ModelChoice,
	apiKey: string | undefined,
): { model: Model; streamFn: StreamFunction | undefined; key: ScopedKey | undefined } {
	if (choice.kind === "scripted") {
		const demo = demoModel();
		return { model: demo.model, streamFn: demo.stream, key: undefined };
	}
	const { model } = choice;
	if (!apiKey) return { model, streamFn: undefined, key: undefined };
	const key: ScopedKey = { key: apiKey, provider: model.provider, baseUrl: model.baseUrl };
	return { model, streamFn: streamWithScopedKey(key), key };
}

/** The provider registry's stream, with the `--api-key` key on requests to the server it belongs to only. */
function streamWithScopedKey(key: ScopedKey): StreamFunction {
	return (model, context, options) => {
		const apiKey = keyFor(key, model);
		return registryStream(model, context, apiKey === undefined ? options : { ...options, apiKey });
	};
}

function isCatalogBaseUrl(model: Model): boolean {
	return MODELS[model.provider]?.[model.id]?.baseUrl === model.baseUrl;
}

function demoInfo(
	agent: Agent,
	sandbox: string,
	reason: string,
	reporter: AutoplayReporter | undefined,
): ScriptedDemoInfo {
	return {
		notice: reason,
		sandbox,
		prompt: DEMO_TEXT.prompt,
		steer: DEMO_TEXT.steer,
		followUp: DEMO_TEXT.followUp,
		longTool: LONG_TOOL,
		autoplay: () => autoplayDemo(agent, reporter),
	};
}
