// A strict consumer (strict, exactOptionalPropertyTypes, skipLibCheck: false) of every capstan entry, run
// by scripts/check-package.mjs against the packed tarball installed outside the repo. Each entry is used
// through a few of its names, typed as a user would type them; everything here runs offline.

import { trace } from "@opentelemetry/api";
import { Agent, type AgentEvent, type AssistantMessage, type Context, emptyUsage, type Model } from "capstan";
import { buildAnthropicRequest } from "capstan/anthropic";
import { buildGeminiRequest } from "capstan/google";
import { buildOpenAICompletionsRequest, buildResponsesRequest } from "capstan/openai";
import { openTelemetry } from "capstan/otel";
import { getModel, listModels } from "capstan/providers";
import { scriptedModel, textReply } from "capstan/testing";

const context: Context = {
	systemPrompt: "Be brief.",
	messages: [{ role: "user", content: "Hello", timestamp: 0 }],
	tools: [{ name: "add", description: "Add two numbers", parameters: { type: "object" } }],
};

function check(condition: boolean, what: string): void {
	if (!condition) throw new Error(`consumer check failed: ${what}`);
}

/** The first catalog model of a provider; the catalog is part of what a user installs. */
function firstModel(provider: string): Model {
	const model = listModels(provider)[0];
	if (!model) throw new Error(`consumer check failed: no ${provider} model in capstan/providers`);
	return model;
}

// Request bodies are pure functions of model and context: no key, no network.
const claude = getModel("anthropic", firstModel("anthropic").id);
check(buildAnthropicRequest(claude, context).messages.length === 1, "capstan/anthropic builds a body");
const gpt = firstModel("openai");
check(buildResponsesRequest(gpt, context).store === false, "capstan/openai builds a Responses body");
check(buildOpenAICompletionsRequest(gpt, context).stream === true, "capstan/openai builds a Chat body");
check(
	buildGeminiRequest(firstModel("google"), context).contents.length === 1,
	"capstan/google builds a body",
);

// The OTel sink on the API's no-op tracer, beside the scripted model from capstan/testing.
const scripted = scriptedModel([textReply("Hi.")]);
const agent = new Agent({
	model: scripted.model,
	streamFn: scripted.stream,
	telemetry: { sinks: [openTelemetry(trace.getTracer("consumer"))] },
});
const events: AgentEvent["type"][] = [];
agent.subscribe((event) => {
	events.push(event.type);
});
await agent.prompt("Hello");
const reply = agent.state.messages.at(-1) as AssistantMessage | undefined;
check(reply?.content[0]?.type === "text", "the scripted reply arrived");
check(events[0] === "agent_start" && events.at(-1) === "agent_end", "events frame the run");
console.log(`consumer: every entry used; ${events.length} events; cost ${emptyUsage().cost.total}`);
