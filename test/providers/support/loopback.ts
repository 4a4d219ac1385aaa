/**
 * One loopback replay server per test: `serve` starts it with a script (recorded bodies or hand-written
 * responses), `closeServersAfterEach` closes every server the test started. For suites that share one
 * server across tests, use `startReplayServer` directly.
 */
import { afterEach } from "vitest";
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
