import type { AgentMessage, AssistantMessage, ToolCall, UserContent } from "../core/messages.js";
import type { JsonSchema } from "../core/model.js";
import type { StandardSchemaV1 } from "./standard-schema.js";

/** What a tool returns (rule T1). `details` is for the host/UI and never reaches the model. */
export interface ToolResult<TDetails = unknown> {
	/** What the model sees: text and image blocks. */
	content: UserContent[];
	/** Structured data for the host and its UI; never sent to a provider. */
	details?: TDetails;
	/** Marks the result as a failure the model should see as one. Default false. */
	isError?: boolean;
}

/** How a call may overlap with its siblings (rule T6). */
export type ToolConcurrency = "shared" | "exclusive";

/**
 * A Zod 4 schema whose validated output is `TOutput`, recognised structurally so capstan needs no runtime
 * dependency on zod: Zod 4 schemas carry `_zod` (with the `output` phantom type), `safeParse` and
 * `toJSONSchema()`.
 */
export interface ZodLikeSchema<TOutput = unknown> {
	/** Zod's internals; capstan only takes the argument type from `output`, and checks `_zod` is present. */
	_zod: { readonly output: TOutput };
	/** Validates a copy of the arguments: `data` is what `execute` receives, or `error.issues` are reported. */
	safeParse(value: unknown): {
		success: boolean;
		data?: unknown;
		error?: { issues: { path: PropertyKey[]; message: string }[] };
	};
	/**
	 * capstan passes `{ io: "input", unrepresentable: "any" }`: the model supplies input (fields with defaults
	 * are optional), and a type JSON Schema cannot express must not make the whole tool list throw.
	 */
	toJSONSchema(params?: { io?: "input" | "output"; unrepresentable?: "throw" | "any" }): JsonSchema;
}

/**
 * Tool parameters: a JSON Schema object (TypeBox builds them), a Zod 4 schema, or a Standard Schema v1
 * validator (Valibot, ArkType, …) that offers a JSON Schema for the wire (see `tool()`).
 */
export type ToolParameters = JsonSchema | ZodLikeSchema | StandardSchemaV1;

/**
 * Parameters whose validated output is `TArgs`: a Zod or Standard Schema whose type says otherwise does not
 * compile as an `AgentTool<TArgs>`. A JSON Schema carries no type here (use `tool()` to infer one).
 */
export type ToolParametersFor<TArgs> = JsonSchema | ZodLikeSchema<TArgs> | StandardSchemaV1<unknown, TArgs>;

/**
 * Passed to `execute` besides the arguments. `steeringRequested` is an accessor on the context's prototype
 * (the signal is built on first read), so a spread (`{ ...ctx }`) leaves it out: to hand the context on,
 * pass `ctx` itself.
 */
export interface ToolExecutionContext {
	/** The call being executed (arguments as the model sent them, after `beforeToolCall` revisions). */
	toolCall: ToolCall;
	/**
	 * Fires when a steering message is queued while this tool runs (rule T10). Cooperative: a tool may
	 * wrap up early; nothing forces it. Interruptible tools additionally get their abort signal fired.
	 */
	steeringRequested: AbortSignal;
	/**
	 * The transcript as it stood when the batch started. The run's own array, not a copy: it grows once the
	 * batch is over, so copy it to keep that view.
	 */
	messages: readonly AgentMessage[];
}

/** A tool the agent may call (rule T1). */
// biome-ignore lint/suspicious/noExplicitAny: default argument type; hosts narrow it with their schema type.
export interface AgentTool<TArgs = any, TDetails = unknown> {
	/**
	 * The name the model calls the tool by; calls are matched to it exactly (rule T2). 1 to 64 letters, digits,
	 * `_` and `-`, starting with a letter or `_` (what every provider accepts), and unique among the tools of a run (rule T1).
	 */
	name: string;
	/** A human-readable name for UIs; the model never sees it. */
	label?: string;
	/** What the tool does and when to use it, for the model. */
	description: string;
	/** The arguments' schema: sent to the model as JSON Schema, checked before the call runs (rule T3). */
	parameters: ToolParametersFor<TArgs>;
	/**
	 * Runs the call with validated arguments (defaults filled in, the intent field removed). `signal` fires
	 * on an abort of the run (rule A1), when its deadline passes (rule A7) and, for an interruptible tool, on a
	 * steer (rule T10); once it fires the loop stops waiting for this call: it gets a placeholder result and
	 * whatever it returns later is discarded. `onUpdate` streams partial results as `tool_execution_update`
	 * events (coerced like a result, ignored once the call has settled). A throw becomes an error result with
	 * the error's message (rule T8); a result that is not a `ToolResult` is coerced (rule T9).
	 */
	execute(
		toolCallId: string,
		args: TArgs,
		signal: AbortSignal,
		onUpdate: (partial: ToolResult<TDetails>) => void,
		ctx: ToolExecutionContext,
	): Promise<ToolResult<TDetails>>;
	/**
	 * How the call may overlap its siblings (rule T6). `shared` (the default) calls overlap one another; an
	 * `exclusive` call starts after every call before it in the reply, and the calls after it wait for it. A
	 * function decides from the validated arguments; one that throws or answers anything but `"shared"` means
	 * `exclusive`.
	 */
	concurrency?: ToolConcurrency | ((args: TArgs) => ToolConcurrency);
	/**
	 * Whether a queued steering message may abort this tool while it runs (rule T10): its `signal` fires and
	 * the batch goes on without waiting for it (status `interrupted`). Default false: the tool finishes and keeps
	 * its result, and only `ctx.steeringRequested` fires. A function decides from the validated arguments; only
	 * `true` counts, so one that throws or answers anything else means not interruptible.
	 */
	interruptible?: boolean | ((args: TArgs) => boolean);
	/** Set false to opt this tool out of intent tracing (rule C5). */
	intent?: boolean;
	/**
	 * Durable runs (`capstan/durable`): running this tool twice with the same arguments is harmless (a read, an
	 * upsert). An idempotent tool that crashed mid-call simply runs again on replay. Default false.
	 */
	idempotent?: boolean;
	/**
	 * Durable runs: what a replay does with a non-idempotent call that started but recorded no result before a
	 * crash (the side effect may or may not have happened). `"report"` (default) gives the model a result
	 * saying so, without running the tool again; `"rerun"` runs it again; a function decides per call.
	 */
	onInterrupted?: InterruptedToolPolicy;
	/**
	 * Rule T14: a call that needs approval is parked, not run; the run ends awaiting a person's decision
	 * (`Agent.approve` / `deny`, or `agentLoopContinue` with `approvals`). Default false. A function decides from
	 * the validated arguments; only `false` means no approval, so one that throws or answers anything else —
	 * `undefined` included — means the call needs approval.
	 */
	needsApproval?: boolean | ((args: TArgs) => boolean);
}

/**
 * How a durable run treats a non-idempotent tool call that started before a crash and never reported (see
 * `AgentTool.onInterrupted`). A function may return `"rerun"` or the result to record instead.
 */
export type InterruptedToolPolicy =
	| "report"
	| "rerun"
	| ((call: {
			toolCallId: string;
			toolName: string;
	  }) => "rerun" | ToolResult | Promise<"rerun" | ToolResult>);

/**
 * How a tool call ended, for events and telemetry (rule X3). `interrupted`: the tool was running and a steer
 * cut it short (rule T10), as opposed to `aborted` by the user, a deadline or the run's signal (rule A1).
 */
export type ToolCallStatus = "ok" | "error" | "skipped" | "blocked" | "aborted" | "interrupted";

/**
 * Why a synthetic placeholder result was written instead of running the tool (rule A3, T11, S2, X1).
 * `lost`: a transcript read back from a session file had the call but not its result (a damaged line), so
 * whether the tool ran is not known.
 */
export type PlaceholderReason =
	| "aborted"
	| "deadline"
	| "error"
	| "length"
	| "interrupted"
	| "soft_requirement"
	| "denied"
	| "lost";

/** `details` of every synthetic placeholder result: a UI renders it as "not run", not as a tool failure. */
export interface PlaceholderDetails {
	/** Marks the result as a placeholder, not the tool's output. */
	synthetic: true;
	/** Why the call did not run. */
	reason: PlaceholderReason;
	/** `false`: the tool did not run to completion; `"unknown"` for a `lost` result. */
	executed: false | "unknown";
	/** True when the tool had started and was abandoned (it ignored its abort signal or was interrupted). */
	started?: boolean;
}

/** Input of `beforeToolCall` (rule T4). */
export interface BeforeToolCallContext {
	/** The call as the model sent it. */
	toolCall: ToolCall;
	/** The tool the call was matched to. */
	tool: AgentTool;
	/** Validated arguments (intent field removed). */
	args: Record<string, unknown>;
	/** The reply that made the call. */
	assistantMessage: AssistantMessage;
	/** The transcript as it stood when the batch started. */
	messages: readonly AgentMessage[];
}

/** `beforeToolCall` may block the call or revise its arguments (re-validated, written back into history). */
export type BeforeToolCallResult =
	| { block: true; reason?: string }
	| { args: Record<string, unknown> }
	| undefined;

/** Input of `afterToolCall` (rule T5). */
export interface AfterToolCallContext {
	/** The call, with any arguments `beforeToolCall` revised. */
	toolCall: ToolCall;
	/** The tool that ran. */
	tool: AgentTool;
	/** The validated arguments the tool ran with. */
	args: Record<string, unknown>;
	/** The tool's result after coercion (rule T9); a thrown error becomes an error result (rule T8). */
	result: ToolResult;
	/** The result's `isError`. */
	isError: boolean;
	/** The reply that made the call. */
	assistantMessage: AssistantMessage;
}

/** A patch `afterToolCall` may apply; the patched result is coerced again (rule T9). */
export interface AfterToolCallPatch {
	/** Replaces the result's content. */
	content?: UserContent[];
	/** Replaces the result's details. */
	details?: unknown;
	/** Replaces the result's error flag. */
	isError?: boolean;
}

/**
 * Rule T4: the host's gate on a call, run in the call's slot right before `execute`: it may block the call or
 * revise its arguments (see `AgentLoopConfig.beforeToolCall`). For a person's decision, see `needsApproval`.
 */
export type BeforeToolCallHook = (
	ctx: BeforeToolCallContext,
	signal: AbortSignal,
) => BeforeToolCallResult | undefined | Promise<BeforeToolCallResult | undefined>;

/** rule T5: the host's hook after `execute` (also for thrown errors); its patch is coerced again. */
export type AfterToolCallHook = (
	ctx: AfterToolCallContext,
	signal: AbortSignal,
) => AfterToolCallPatch | undefined | Promise<AfterToolCallPatch | undefined>;

/**
 * The run events a tool batch emits (part of `AgentEvent`). Defined with the tool contract so the batch
 * depends only on it; the run protocol composes them into `AgentEvent`. Every call of a batch gets one
 * `tool_execution_start` and one `tool_execution_end` — a call that never executes (unknown, invalid, blocked,
 * skipped, aborted before it started) gets its start right before its end — except a call parked for approval,
 * which gets neither (rule T14). Ends come in the order calls finish (rule T7).
 */
export type ToolExecutionEvent =
	| {
			type: "tool_execution_start";
			toolCallId: string;
			toolName: string;
			/** The arguments the call runs with: the model's, or `beforeToolCall`'s revision; no intent field. */
			args: Record<string, unknown>;
			/** The model's stated intent for this call when intent tracing is on (rule C5). */
			intent?: string;
	  }
	| {
			type: "tool_execution_update";
			toolCallId: string;
			toolName: string;
			args: Record<string, unknown>;
			/** What the tool passed to `onUpdate`, coerced like a result (rule T9). */
			partialResult: ToolResult;
	  }
	| {
			type: "tool_execution_end";
			toolCallId: string;
			toolName: string;
			/** The call's final result: the tool's (after `afterToolCall`), an error result, or a placeholder. */
			result: ToolResult;
			/** The result's `isError`. */
			isError: boolean;
			/** How the call ended (rule X3). */
			status: ToolCallStatus;
	  };
