/**
 * `@restatedev/restate-sdk` calls `Promise.withResolvers` (ES2024, Node 22+) on every journaled promise, and
 * capstan supports Node 20, where it is missing. Installed only when missing, by the adapter's own entry
 * points (not as an import side effect: the package is marked side-effect free, so a bundler may drop one).
 */

interface Resolvers<T> {
	promise: Promise<T>;
	resolve: (value: T | PromiseLike<T>) => void;
	reject: (reason?: unknown) => void;
}

/** Install `Promise.withResolvers` when the runtime lacks it (Node 20); a no-op on Node 22+. */
export function ensurePromiseWithResolvers(): void {
	const target = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };
	if (typeof target.withResolvers === "function") return;
	Object.defineProperty(Promise, "withResolvers", {
		configurable: true,
		writable: true,
		value: function withResolvers<T>(this: PromiseConstructor): Resolvers<T> {
			let resolve!: Resolvers<T>["resolve"];
			let reject!: Resolvers<T>["reject"];
			// `this`, like the standard method, so a subclass calling it gets instances of itself.
			const promise = new (this ?? Promise)<T>((res, rej) => {
				resolve = res;
				reject = rej;
			});
			return { promise, resolve, reject };
		},
	});
}
