/**
 * The libraries under test, by the name the runner and the tables use. Each is imported only by the worker
 * that runs it, so no process loads (or JIT-warms, or garbage-collects) another library's code.
 */
import type { Conversation, Driver } from "./adapters/types.js";

const floor = async (): Promise<Driver> => {
	const { runFloor } = await import("./floor.js");
	return async ({ source, tools, onTextDelta }: Conversation) => {
		await runFloor(source, tools, onTextDelta);
	};
};

/** Every driver's loader, the floor first. */
export const DRIVERS = {
	floor,
	capstan: async () => (await import("./adapters/capstan.js")).runCapstan,
	"pi-agent-core": async () => (await import("./adapters/pi.js")).runPi,
	"openai-agents": async () => (await import("./adapters/openai-agents.js")).runOpenAiAgents,
	"ai-sdk": async () => (await import("./adapters/ai-sdk.js")).runAiSdk,
	/** Not a library: W4's work with no layers (reference.ts). Runs only when named (`--only`, `--lib`). */
	reference: async () => (await import("./reference.js")).runReference,
} satisfies Record<string, () => Promise<Driver>>;

/** A library's name. */
export type LibraryName = keyof typeof DRIVERS;

/** The names, in table order: what `npm run bench` measures when no `--only` names others. */
export const LIBRARIES: LibraryName[] = (Object.keys(DRIVERS) as LibraryName[]).filter(
	(name) => name !== "reference",
);

/** The package each library row measures (its version is read from `bench/node_modules`). */
export const PACKAGES: Record<LibraryName, string | undefined> = {
	floor: undefined,
	capstan: "capstan",
	"pi-agent-core": "@mariozechner/pi-agent-core",
	"openai-agents": "@openai/agents-core",
	"ai-sdk": "ai",
	reference: undefined,
};

/**
 * The libraries an `--only=a,b` flag names, in table order, the floor always among them (every figure is a
 * ratio to it); all of `LIBRARIES` when the flag is absent. Throws on a name it does not know.
 */
export function selectLibraries(only: string | undefined): LibraryName[] {
	const names = only?.split(",") ?? LIBRARIES;
	const known = Object.keys(DRIVERS) as LibraryName[];
	const unknown = names.filter((name) => !known.includes(name as LibraryName));
	if (unknown.length > 0)
		throw new Error(`--only: unknown ${unknown.join(", ")} (known: ${known.join(", ")})`);
	return known.filter((library) => library === "floor" || names.includes(library));
}
