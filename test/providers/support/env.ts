/**
 * Provider tests run with no API key in the environment, whatever the developer's shell has: every variable a
 * provider could read (plus the test's own) is removed before each test and restored after it.
 */
import { afterEach, beforeEach } from "vitest";
import { API_KEY_ENV_VARS } from "../../../src/providers/base/env.js";

/** Remove every provider key variable, and `extra`, for each test of the calling file. */
export function withoutProviderKeysForEachTest(...extra: string[]): void {
	const names = [...new Set(Object.values(API_KEY_ENV_VARS).flat()), ...extra];
	const env = process.env;
	let saved: Record<string, string | undefined> = {};
	beforeEach(() => {
		saved = Object.fromEntries(names.map((name) => [name, env[name]]));
		for (const name of names) Reflect.deleteProperty(env, name);
	});
	afterEach(() => {
		for (const [name, value] of Object.entries(saved))
			if (value === undefined) Reflect.deleteProperty(env, name);
			else env[name] = value;
	});
}
