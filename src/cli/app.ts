/**
 * The `capstan` command's agent, assembled from the parsed flags, the settings files and the environment:
 * the model (or the scripted demo), the workspace tools with the approval hook, the system prompt, the
 * session file. `CliApp` is the {@link InteractiveHost} every mode drives — print, JSON, RPC and the TTY.
 */
import { resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import type { Model, RetryInfo, StreamFunction, ThinkingLevel } from "../core/model.js";
import type { McpConnection } from "../mcp/index.js";
import type { AgentEvent } from "../protocol/events.js";
import { MODELS } from "../providers/models.js";
import type { AgentTool } from "../tools/types.js";
import { createWorkspaceTools, MUTATING_TOOLS } from "../workspace/index.js";
import { ApprovalDesk, type ApprovalPolicy, askBeforeRunning } from "./approval.js";
import type { CliArgs } from "./args.js";
import type { CliConfig } from "./config.js";
import {
	type AutoplayReporter,
	autoplayDemo,
	createDemoSandbox,
	DEMO_TEXT,
	demoModel,
	LONG_TOOL,
	watchBuildTool,
} from "./demo.js";
import type { InteractiveHost, ModelDescription, ScriptedDemoInfo, ToolApprover } from "./host.js";
import { attachMcpTools, mcpServersFor } from "./mcp.js";
import { catalogModel, catalogSpecs, ModelError, modelSpec, requireKey, resolveModel } from "./models.js";
import { explainEnd } from "./outcome.js";
import { type CliSessions, openSessions } from "./session.js";
import { codingSystemPrompt } from "./system-prompt.js";

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
}

/** The assembled command: an {@link InteractiveHost} plus what the other modes need. */
export class CliApp implements InteractiveHost {
	readonly scripted?: ScriptedDemoInfo;

	private constructor(
		readonly agent: Agent,
		readonly cwd: string,
		readonly version: string,
		readonly sessions: CliSessions,
		private readonly policy: ApprovalPolicy,
		private readonly desk: ApprovalDesk,
		private readonly apiKey: string | undefined,
		private readonly retryListeners: Set<(info: RetryInfo) => void>,
		scripted: ScriptedDemoInfo | undefined,
		private readonly mcp: McpConnection | undefined,
	) {
		if (scripted) this.scripted = scripted;
	}

	/** Resolve the model and build the agent, its tools and its session file. Throws ModelError/ConfigError. */
	static async create(input: AppInput): Promise<CliApp> {
		const { args, config, version } = input;
		const choice = await resolveModel({
			model: args.model ?? config.model,
			baseUrl: args.baseUrl ?? config.baseUrl,
			apiKey: args.apiKey,
			apiKeyEnv: config.apiKeyEnv,
			contextWindow: config.contextWindow,
			demo: args.demo,
		});
		const scripted = choice.kind === "scripted";
		// The demo never touches the user's project: its tools, and its sessions unless a folder is named, live
		// in a fresh temporary directory.
		const sandbox = scripted ? await createDemoSandbox() : undefined;
		const cwd = sandbox?.project ?? input.cwd;
		const autoApprove = scripted || args.yes;
		const policy: ApprovalPolicy = { autoApprove, approver: undefined };
		// Provider retries (rule A8) reach whichever mode listens: the TTY shows each with its wait.
		const retryListeners = new Set<(info: RetryInfo) => void>();
		// Rule T14: mutating tools pause the run for approval; --yes (read at each call) lets them run.
		const tools: AgentTool[] = createWorkspaceTools({ cwd }).map((tool) =>
			MUTATING_TOOLS.has(tool.name) ? askBeforeRunning(tool, policy) : tool,
		);
		let model: Model;
		let streamFn: StreamFunction | undefined;
		if (choice.kind === "scripted") {
			const demo = demoModel();
			model = demo.model;
			streamFn = demo.stream;
			tools.push(watchBuildTool());
		} else model = choice.model;
		const confirm = new Set(MUTATING_TOOLS);
		const mcpServers = await mcpServersFor(config.mcpServers, args.mcp, input.cwd);
		const mcp = mcpServers
			? await attachMcpTools(mcpServers, tools, confirm, (tool) => askBeforeRunning(tool, policy))
			: undefined;
		const agent = new Agent({
			model,
			...(streamFn ? { streamFn } : {}),
			systemPrompt: codingSystemPrompt(cwd, tools, autoApprove),
			thinkingLevel: args.thinking ?? config.thinking ?? (scripted ? "medium" : "off"),
			tools,
			...(args.apiKey ? { getApiKey: () => args.apiKey } : {}),
			streamOptions: {
				onRetry: (info) => {
					for (const listener of retryListeners) listener(info);
				},
			},
		});
		const sessionDir = resolve(
			input.cwd,
			args.sessionDir ?? config.sessionDir ?? sandbox?.sessions ?? DEFAULT_SESSION_DIR,
		);
		const sessions = await openSessions({
			agent,
			enabled: args.session ?? config.session ?? true,
			dir: sessionDir,
			cwd,
			version,
		}).catch(async (error: unknown) => {
			// A session folder that cannot be used ends the command: stop the MCP servers it started.
			await mcp?.close();
			throw error;
		});
		const info = scripted ? demoInfo(agent, cwd, choice.reason, input.demoReporter) : undefined;
		const desk = new ApprovalDesk(agent, policy);
		return new CliApp(agent, cwd, version, sessions, policy, desk, args.apiKey, retryListeners, info, mcp);
	}

	/** Resolves once no run is active and every approval a run paused on is answered (rule T15, T16). */
	idle(): Promise<void> {
		return this.desk.idle();
	}

	/** Close the MCP servers' connections (stdio servers are stopped). */
	async close(): Promise<void> {
		await this.mcp?.close();
	}

	/** Tell `listener` of every provider retry; returns the unsubscribe. */
	onRetry(listener: (info: RetryInfo) => void): () => void {
		this.retryListeners.add(listener);
		return () => this.retryListeners.delete(listener);
	}

	/** True with `--yes` (or in the demo's sandbox). */
	get autoApprove(): boolean {
		return this.policy.autoApprove;
	}

	setApprover(approver: ToolApprover | undefined): void {
		this.policy.approver = approver;
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
		if (model.baseUrl !== undefined && !isCatalogBaseUrl(model)) description.baseUrl = model.baseUrl;
		return description;
	}

	listModels(): string[] {
		const current = modelSpec(this.agent.state.model);
		return [current, ...catalogSpecs().filter((spec) => spec !== current)];
	}

	setModel(spec: string): void {
		if (this.scripted)
			throw new ModelError("the scripted demo has no other model: set an API key or --base-url");
		const current = this.agent.state.model;
		const model = spec.includes("/") ? catalogModel(spec) : sameServerModel(current, spec);
		requireKey(model, this.apiKey);
		this.agent.setModel(model);
	}

	setThinking(level: ThinkingLevel): void {
		this.agent.setThinkingLevel(level);
	}

	explainEnd(event: Extract<AgentEvent, { type: "agent_end" }>): string | undefined {
		return explainEnd(event);
	}
}

/** An id without a provider: the current server's model of that id, or a catalog model found by id. */
function sameServerModel(current: Model, id: string): Model {
	if (MODELS[current.provider]?.[id] === undefined && !isCatalogBaseUrl(current))
		return { ...current, id, name: id };
	return catalogModel(id);
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
