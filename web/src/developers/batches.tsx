// Batches: the batches of the app's mode (POST /v1/messages/batch), newest
// first in cursor pages, with their messages counted by status; while a
// batch shown is unfinished the page asks again every few seconds.
import { useEffect } from "preact/hooks";
import { q } from "./gql";
import { ErrorText, Pager, When, useCursors, useLoad } from "./ui";

type Counts = { queued: number; sending: number; sent: number; delivered: number; read: number; failed: number };
type Batch = { id: string; createdAt: string; total: number; refused: number; done: boolean; counts: Counts };
type Page = { messageBatches: { items: Batch[]; hasMore: boolean; nextCursor?: string | null } };

/** How often unfinished batches are asked for again, in milliseconds. */
const every = 3000;

const statuses: (keyof Counts)[] = ["queued", "sending", "sent", "delivered", "read", "failed"];

/** The batches page. */
export function Batches() {
  const pages = useCursors();
  const list = useLoad(
    () =>
      q<Page>(
        `query($after:String){messageBatches(limit:20,after:$after){items{id createdAt total refused done counts{queued sending sent delivered read failed}} hasMore nextCursor}}`,
        { after: pages.after },
      ),
    [pages.after],
  );
  const page = list.data?.messageBatches;
  const running = (page?.items ?? []).filter((b) => !b.done).length;
  // The client's request policy is network-only: each reload asks the API.
  useEffect(() => {
    if (!running || list.loading) return;
    const t = setTimeout(list.reload, every);
    return () => clearTimeout(t);
  }, [page, list.loading]);
  return (
    <section aria-labelledby="batches-h">
      <h2 id="batches-h">Batches</h2>
      <p>
        Batches sent with <code>POST /v1/messages/batch</code> in this mode, newest first, with their messages by status now.
      </p>
      <div class="actions">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
        <p role="status" class="note">
          {!page ? "" : running ? `${running} in progress; updating every ${every / 1000} seconds.` : page.items.length ? "Every batch shown is done." : ""}
        </p>
      </div>
      <ErrorText error={list.error} />
      <table aria-label="Batches">
        <thead>
          <tr>
            <th scope="col">Batch</th>
            <th scope="col">Created</th>
            <th scope="col">Sends</th>
            <th scope="col">Refused</th>
            {statuses.map((s) => (
              <th scope="col" key={s}>
                {s[0].toUpperCase() + s.slice(1)}
              </th>
            ))}
            <th scope="col">Progress</th>
          </tr>
        </thead>
        <tbody>
          {(page?.items ?? []).map((b) => {
            const counted = statuses.reduce((n, s) => n + b.counts[s], 0);
            const settled = counted - b.counts.queued - b.counts.sending;
            return (
              <tr key={b.id}>
                <th scope="row">
                  <code>{b.id}</code>
                </th>
                <td>
                  <When at={b.createdAt} />
                </td>
                <td>{b.total}</td>
                <td>{b.refused}</td>
                {statuses.map((s) => (
                  <td key={s}>{b.counts[s]}</td>
                ))}
                <td>
                  <progress aria-label={`Progress of ${b.id}`} max={counted || 1} value={counted ? settled : 1} />{" "}
                  {b.done ? "Done" : "In progress"}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {page && !page.items.length && <p>No batch in this mode yet.</p>}
      <Pager label="Batches pages" pages={pages} page={page} />
    </section>
  );
}
