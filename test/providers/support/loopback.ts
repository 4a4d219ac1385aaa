/**
 * Lifecycles of loopback replay servers in a test file: one server per test (`serve` starts it with a script
 * of recorded bodies or hand-written responses, `closeServersAfterEach` closes every server the test
 * started), or one server for the whole file that tests script with `enqueue` (`serverForFile`).
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import {
	type ReplayServer,
	type ScriptedResponse,
	type SplitOptions,
	startReplayServer,
} from "./replay-server.js";

const open = new Set<ReplayServer>();

/** Close the servers each test started, after it; call once at the top of a test file. */
export function closeServersAfterEach(): void {
	afterEach(async () => {
		const servers = [...open];
		open.clear();
		await Promise.all(servers.map((server) => server.close()));
	});
}

/** Start a server for this test with a script. */
export async function serve(...script: ScriptedResponse[]): Promise<ReplayServer> {
	const server = await startReplayServer(script);
	open.add(server);
	return server;
}

/** Start a server for this test that answers with `bodies` in order, each as an SSE response cut by `split`. */
export function serveBodies(
	bodies: readonly Uint8Array[],
	split: SplitOptions | false,
): Promise<ReplayServer> {
	return serve(...bodies.map((body) => ({ type: "sse" as const, body, split })));
}

/**
 * One server for the whole file: started before the first test, closed after the last. The returned handle
 * reads through to the running server. With `expectDrained`, every test must consume all it enqueued.
 */
export function serverForFile(options: { expectDrained?: boolean } = {}): ReplayServer {
	let server: ReplayServer | undefined;
	const running = (): ReplayServer => {
		if (!server) throw new Error("the file's replay server is used outside a test");
		return server;
	};
	beforeAll(async () => {
		server = await startReplayServer();
	});
	if (options.expectDrained) afterEach(() => expect(running().pending()).toBe(0));
	afterAll(() => running().close());
	return {
		get baseUrl() {
			return running().baseUrl;
		},
		get requests() {
			return running().requests;
		},
		enqueue: (...responses) => running().enqueue(...responses),
		pending: () => running().pending(),
		close: () => running().close(),
	};
}
