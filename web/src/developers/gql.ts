// The portal's one way to the GraphQL API: the app's client (session cookie,
// the Test mode switch's Msgsvc-Livemode header). Errors are thrown as
// APIError with the API's code and message; step-up goes through the
// shell's dialog.
import type { OperationResult } from "@urql/core";
import { APIError, errorCode, errorMessage, mutate, query } from "../api";
import { withStepUp } from "../stepup";

function run<T>(doc: string, vars: Record<string, unknown>): Promise<OperationResult<T>> {
  return doc.startsWith("mutation") ? mutate<T>(doc, vars) : query<T>(doc, vars);
}

function unwrap<T>(r: OperationResult<T>): T {
  if (r.error) throw new APIError(200, errorCode(r.error) ?? "error", errorMessage(r.error));
  return r.data as T;
}

/** Runs one GraphQL operation and answers its data; errors are thrown. */
export async function q<T = any>(doc: string, vars: Record<string, unknown> = {}): Promise<T> {
  return unwrap(await run<T>(doc, vars));
}

/** q for an operation that needs step-up for purpose: the shell asks for
 * the emailed code and runs it again. */
export async function stepped<T = any>(purpose: string, doc: string, vars: Record<string, unknown> = {}): Promise<T> {
  return unwrap(await withStepUp(purpose, () => run<T>(doc, vars)));
}
