/**
 * The Gemini `generateContent` wire shapes capstan reads and writes — only those, written from the REST
 * reference and the `@google/genai` types (whose enums are plain strings on the wire). They live here rather
 * than being imported from `@google/genai` because that package is a dev dependency: a published `.d.ts`
 * naming it would not compile for a consumer without it. `test/providers/google/wire.test.ts` holds them to
 * the SDK's: what we send fits the SDK's request types, and every chunk the SDK describes is one we accept.
 */

/** One fragment of streamed function-call arguments (Vertex `streamFunctionCallArguments`). */
export interface PartialArg {
	jsonPath?: string;
	stringValue?: string;
	numberValue?: number;
	boolValue?: boolean;
	nullValue?: "NULL_VALUE";
	willContinue?: boolean;
}

/** A function call; with `willContinue` its arguments stream as `partialArgs` in later chunks. */
export interface FunctionCall {
	id?: string;
	name?: string;
	args?: Record<string, unknown>;
	partialArgs?: PartialArg[];
	willContinue?: boolean;
}

/** The result of one function call, keyed by name (and `id` where the server uses call ids). */
export interface FunctionResponse {
	id?: string;
	name?: string;
	response?: Record<string, unknown>;
}

/** One part of a content; a model part may carry a `thoughtSignature` that must be replayed. */
export interface Part {
	text?: string;
	thought?: boolean;
	thoughtSignature?: string;
	inlineData?: { mimeType?: string; data?: string };
	functionCall?: FunctionCall;
	functionResponse?: FunctionResponse;
}

/** A turn: role `user` or `model`. */
export interface Content {
	role?: string;
	parts?: Part[];
}

/** A function the model may call; the parameters are a plain JSON Schema. */
export interface FunctionDeclaration {
	name: string;
	description?: string;
	parametersJsonSchema?: unknown;
}

/** A tool: capstan declares function tools only. */
export interface Tool {
	functionDeclarations?: FunctionDeclaration[];
}

/** `functionCallingConfig.mode`. */
export type FunctionCallingConfigMode = "MODE_UNSPECIFIED" | "AUTO" | "ANY" | "NONE" | "VALIDATED";

/** `toolConfig.functionCallingConfig`. */
export interface FunctionCallingConfig {
	mode?: FunctionCallingConfigMode;
	allowedFunctionNames?: string[];
	streamFunctionCallArguments?: boolean;
}

/** `toolConfig`. */
export interface ToolConfig {
	functionCallingConfig?: FunctionCallingConfig;
}

/** `thinkingConfig.thinkingLevel` (Gemini 3). */
export type ThinkingLevel = "THINKING_LEVEL_UNSPECIFIED" | "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";

/** `thinkingConfig`: a level (Gemini 3) or a token budget (2.5), and whether thought summaries come back. */
export interface ThinkingConfig {
	includeThoughts?: boolean;
	thinkingBudget?: number;
	thinkingLevel?: ThinkingLevel;
}

/** `generationConfig`, as far as capstan fills it. */
export interface GenerationConfig {
	maxOutputTokens?: number;
	temperature?: number;
	thinkingConfig?: ThinkingConfig;
}

/** Token counts of a chunk. */
export interface GenerateContentResponseUsageMetadata {
	promptTokenCount?: number;
	cachedContentTokenCount?: number;
	candidatesTokenCount?: number;
	thoughtsTokenCount?: number;
	toolUsePromptTokenCount?: number;
	totalTokenCount?: number;
}

/** One candidate of a chunk; the metadata objects are kept whole as citations. */
export interface Candidate {
	content?: Content;
	finishReason?: string;
	finishMessage?: string;
	citationMetadata?: object;
	groundingMetadata?: object;
	urlContextMetadata?: object;
}

/** One streamed chunk. */
export interface GenerateContentResponse {
	candidates?: Candidate[];
	promptFeedback?: { blockReason?: string };
	usageMetadata?: GenerateContentResponseUsageMetadata;
	responseId?: string;
	modelVersion?: string;
}
