// The portal's one way to the GraphQL API: the app's client (session cookie,
// the Test mode switch's Msgsvc-Livemode header, errors with their code).
import { graphql } from "../api";

/** Runs one GraphQL operation and answers its data; errors are thrown. */
export function q<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  return graphql<T>(query, variables);
}
