// One Agent on each real provider, plus a local OpenAI-compatible server. Each section runs only when its
// key (or server) is there, so this file also runs offline: it then prints what it skipped.
import { Agent, type AgentTool, type Model } from "capstan";
import { getModel, LOCAL_SERVER_BASE_URLS, openaiCompatible } from "capstan/providers";

const clock: AgentTool = {
	name: "clock",
	description: "The current UTC time",
	parameters: { type: "object", properties: {} },
	execute: async () => ({ content: [{ type: "text", text: new Date().toISOString() }] }),
};

async function ask(label: string, model: Model): Promise<void> {
	const agent = new Agent({
		model,
		tools: [clock],
		thinkingLevel: "low",
		streamOptions: {
			onRetry: (r) => console.log(`  retry ${r.attempt} in ${r.delayMs} ms (${r.errorKind})`),
		},
	});
	await agent.prompt("What time is it? Use the clock tool, then answer in one short sentence.");
	const last = agent.state.messages.at(-1);
	const text =
		last?.role === "assistant"
			? last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
			: "";
	console.log(`${label}: ${agent.state.error ? `error: ${agent.state.error}` : text}`);
}

const env = process.env;
if (env.ANTHROPIC_API_KEY) await ask("anthropic", getModel("anthropic", "claude-sonnet-4-5"));
else console.log("anthropic: skipped (no ANTHROPIC_API_KEY)");
if (env.OPENAI_API_KEY) {
	await ask("openai responses", getModel("openai", "gpt-5-mini"));
	await ask("openai chat completions", { ...getModel("openai", "gpt-4.1"), api: "openai-completions" });
} else console.log("openai: skipped (no OPENAI_API_KEY)");
if (env.GEMINI_API_KEY || env.GOOGLE_API_KEY) await ask("google", getModel("google", "gemini-2.5-flash"));
else console.log("google: skipped (no GEMINI_API_KEY)");

// A local server speaking Chat Completions (Ollama here; vLLM, llama.cpp server and LM Studio work the same —
// the port or `preset` picks the wire quirks, and no key is needed). Set OLLAMA_MODEL to try it.
if (env.OLLAMA_MODEL) {
	const { model } = openaiCompatible({
		baseUrl: env.OLLAMA_BASE_URL ?? LOCAL_SERVER_BASE_URLS.ollama,
		model: env.OLLAMA_MODEL,
		preset: "ollama",
	});
	await ask("ollama", model);
} else console.log("ollama: skipped (set OLLAMA_MODEL, e.g. qwen3:8b)");
