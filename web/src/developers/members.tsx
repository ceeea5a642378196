// Members (owners): invite by email with a role, change a role, switch a
// member off or on (switching off ends her sessions at once).
import { useState } from "preact/hooks";
import { q } from "./gql";
import { ErrorText, Field, Select, useLoad } from "./ui";

type Member = { id: string; name: string; email: string; role: string; active: boolean };
const roles: [string, string][] = [
  ["agent", "agent"],
  ["developer", "developer"],
  ["admin", "admin"],
  ["owner", "owner"],
];

/** The members page; only owners reach it. */
export function Members(p: { meId?: string }) {
  const list = useLoad(() => q<{ members: Member[] }>(`query{members{id name email role active}}`), []);
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState("agent");
  const [err, setErr] = useState<unknown>(null);
  const [note, setNote] = useState("");
  const run = async (fn: () => Promise<unknown>, done: string) => {
    setErr(null);
    setNote("");
    try {
      await fn();
      setNote(done);
      list.reload();
    } catch (x) {
      setErr(x);
    }
  };
  return (
    <section aria-labelledby="mem-h">
      <h2 id="mem-h">Members</h2>
      <form
        aria-label="Invite a member"
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          run(
            () =>
              q(`mutation($e:String!,$n:String!,$r:String!){inviteMember(email:$e,name:$n,role:$r){id}}`, {
                e: email.trim(),
                n: name.trim() || email.trim().split("@")[0],
                r: role,
              }),
            `Invitation mailed to ${email}.`,
          ).then(() => setEmail(""));
        }}
      >
        <Field label="Email" type="email" required value={email} onInput={(e: Event) => setEmail((e.target as HTMLInputElement).value)} />
        <Field label="Name" value={name} onInput={(e: Event) => setName((e.target as HTMLInputElement).value)} />
        <Select label="Role" value={role} options={roles} onChange={setRole} />
        <button type="submit">Invite</button>
      </form>
      <div role="status">{note}</div>
      <ErrorText error={err || list.error} />
      <table aria-label="Members">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.members ?? []).map((m) => (
            <tr key={m.id}>
              <th scope="row">{m.name}</th>
              <td>{m.email}</td>
              <td>
                <Select
                  label={`Role of ${m.name}`}
                  hideLabel
                  value={m.role}
                  options={roles}
                  onChange={(v) =>
                    run(() => q(`mutation($id:ID!,$r:String!){updateMemberRole(id:$id,role:$r){id}}`, { id: m.id, r: v }), `${m.name} is now ${v}.`)
                  }
                />
              </td>
              <td>{m.active ? "active" : "switched off"}</td>
              <td>
                {m.id !== p.meId && (
                  <button
                    type="button"
                    onClick={() =>
                      run(
                        () => q(`mutation($id:ID!,$a:Boolean!){setMemberActive(id:$id,active:$a){id}}`, { id: m.id, a: !m.active }),
                        `${m.name} switched ${m.active ? "off" : "on"}.`,
                      )
                    }
                  >
                    {m.active ? "Switch off" : "Switch on"}
                    <span class="sr-only"> {m.name}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
