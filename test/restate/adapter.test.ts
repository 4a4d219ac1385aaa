// The parts of capstan/restate that need no server: the Node 20 polyfill, definitions, and the errors a
// caller gets from the client and the registration when the server is missing or the input is wrong.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
	ensurePromiseWithResolvers,
	INBOX_TOPICS,
	inboxName,
	RestateAgentClient,
	RestateRequestError,
	registerRestateDeployment,
	restateAgent,
	serveRestateAgents,
} from "../../src/restate/index.js";
import { scriptedModel } from "../../src/testing/index.js";
import { freePort } from "./support/services.js";

const original = Object.getOwnPropertyDescriptor(Promise, "withResolvers");
afterEach(() => {
	if (original) Object.defineProperty(Promise, "withResolvers", original);
});

describe("capstan/restate without a server", () => {
	it("installs Promise.withResolvers only when the runtime lacks it (Node 20)", async () => {
		Reflect.deleteProperty(Promise, "withResolvers");
		ensurePromiseWithResolvers();
		const withResolvers = (
			Promise as unknown as {
				withResolvers: <T>() => {
					promise: Promise<T>;
					resolve: (v: T) => void;
					reject: (e: unknown) => void;
				};
			}
		).withResolvers;
		const a = withResolvers<number>();
		a.resolve(7);
		expect(await a.promise).toBe(7);
		const b = withResolvers<number>();
		b.reject(new Error("no"));
		await expect(b.promise).rejects.toThrow("no");
		// A runtime that has it keeps its own.
		const own = () => "native";
		Object.defineProperty(Promise, "withResolvers", { configurable: true, writable: true, value: own });
		ensurePromiseWithResolvers();
		expect((Promise as unknown as { withResolvers: unknown }).withResolvers).toBe(own);
	});

	it("defines the conversation object and its inbox under the agent's name; refuses a name Restate cannot route", () => {
		const { model, stream } = scriptedModel([]);
		const definition = restateAgent({ name: "support", agent: { model, streamFn: stream } });
		expect(definition.services.map((service) => service.name)).toEqual(["support", "supportInbox"]);
		expect(inboxName("support")).toBe("supportInbox");
		expect(INBOX_TOPICS).toEqual(["steer", "followUp", "abort"]);
		expect(() => restateAgent({ name: "my agent", agent: { model, streamFn: stream } })).toThrow(
			/must be letters, digits and underscores/,
		);
	});

	it("serves on loopback by default and closes", async () => {
		const { model, stream } = scriptedModel([]);
		const worker = await serveRestateAgents([
			restateAgent({ name: "local", agent: { model, streamFn: stream } }),
		]);
		expect(worker.url).toBe(`http://127.0.0.1:${worker.port}`);
		await worker.close();
	});

	it("says which server is unreachable, and never echoes the caller's headers", async () => {
		const port = await freePort(); // nothing listens there
		const client = new RestateAgentClient({
			ingressUrl: `http://127.0.0.1:${port}`,
			name: "support",
			headers: { authorization: "Bearer sk-secret-123" },
		});
		const error = (await client.steer("c1", "hi").catch((e: unknown) => e)) as Error;
		expect(error.message).toMatch(
			/^send to the inbox of c1: the Restate ingress is unreachable \(.*ECONNREFUSED/,
		);
		expect(error.message).not.toContain("sk-secret-123");
		await expect(
			registerRestateDeployment({ adminUrl: `http://127.0.0.1:${port}`, uri: "http://127.0.0.1:1" }),
		).rejects.toThrow(/^register http:\/\/127\.0\.0\.1:1 with Restate: the admin API is unreachable/);
		expect(() => new RestateAgentClient({ ingressUrl: "not a url", name: "x" })).toThrow(
			"ingressUrl is not a valid URL",
		);
	});

	it("credentials in the ingress or admin URL become a Basic authorization header, never part of an error", async () => {
		const seen: (string | undefined)[] = [];
		const server = createServer((request, response) => {
			seen.push(request.headers.authorization);
			response.writeHead(request.url === "/deployments" ? 201 : 200, { "content-type": "application/json" });
			response.end(JSON.stringify(request.url === "/deployments" ? { id: "dp_1" } : []));
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		try {
			const { port } = server.address() as AddressInfo;
			const basic = `Basic ${Buffer.from("alice:s3cret pass").toString("base64")}`;
			const client = new RestateAgentClient({
				ingressUrl: `http://alice:s3cret%20pass@127.0.0.1:${port}`,
				name: "support",
			});
			expect(await client.transcript("c1")).toEqual([]);
			const adminUrl = `http://alice:s3cret%20pass@127.0.0.1:${port}`;
			expect(await registerRestateDeployment({ adminUrl, uri: "http://127.0.0.1:1" })).toBe("dp_1");
			expect(seen).toEqual([basic, basic]);
			// Unreachable: the error names what failed, not the password.
			const gone = await freePort();
			const offline = new RestateAgentClient({
				ingressUrl: `http://alice:s3cret@127.0.0.1:${gone}`,
				name: "x",
			});
			const error = (await offline.steer("c1", "hi").catch((e: unknown) => e)) as Error;
			expect(error.message).toMatch(/the Restate ingress is unreachable/);
			expect(error.message).not.toContain("s3cret");
			const refused = (await registerRestateDeployment({
				adminUrl: `http://alice:s3cret@127.0.0.1:${gone}`,
				uri: "http://127.0.0.1:1",
			}).catch((e: unknown) => e)) as Error;
			expect(refused.message).toMatch(/the admin API is unreachable/);
			expect(refused.message).not.toContain("s3cret");
		} finally {
			server.close();
		}
	});

	it("a proxy quoting the credentials it refused: neither client nor registration errors carry them — SPEC E3", async () => {
		// Quotes the credential alone, without its header name or scheme: only the values themselves can mask it.
		const server = createServer((request, response) => {
			const credential = (request.headers.authorization ?? "").split(" ").pop();
			response.writeHead(401, { "content-type": "application/json" });
			response.end(JSON.stringify({ message: `credential ${credential} refused` }));
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		try {
			const { port } = server.address() as AddressInfo;
			const client = new RestateAgentClient({
				ingressUrl: `http://127.0.0.1:${port}`,
				name: "support",
				headers: { authorization: "Bearer rSENTINELtoken99" },
			});
			const error = (await client.transcript("c1").catch((e: unknown) => e)) as Error;
			expect(error.message).toContain("credential [redacted] refused");
			expect(error.message).not.toContain("SENTINEL");
			const basic = Buffer.from("alice:pwSENTINEL77").toString("base64");
			const refused = (await registerRestateDeployment({
				adminUrl: `http://alice:pwSENTINEL77@127.0.0.1:${port}`,
				uri: "http://127.0.0.1:1",
			}).catch((e: unknown) => e)) as Error;
			expect(refused.message).toContain("answered 401");
			expect(refused.message).not.toContain(basic);
			expect(refused.message).not.toContain("SENTINEL");
		} finally {
			server.close();
		}
	});

	it("turns an error answer into a RestateRequestError with the status and Restate's message", async () => {
		const server = createServer((_request, response) => {
			response.writeHead(404, { "content-type": "application/json" });
			response.end(JSON.stringify({ message: "service 'support' not found" }));
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		try {
			const { port } = server.address() as AddressInfo;
			const client = new RestateAgentClient({ ingressUrl: `http://127.0.0.1:${port}/`, name: "support" });
			const error = (await client.transcript("c1").catch((e: unknown) => e)) as RestateRequestError;
			expect(error).toBeInstanceOf(RestateRequestError);
			expect(error.status).toBe(404);
			expect(error.message).toBe(
				"read the transcript of c1: Restate answered 404: service 'support' not found",
			);
		} finally {
			server.close();
		}
	});
});
