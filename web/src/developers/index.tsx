// The developer portal (owned by the web-portal work; this placeholder is
// replaced there). The shell loads it lazily for /app/developers/*.
export function Developers() {
  return (
    <section aria-labelledby="dev-title">
      <h1 id="dev-title">Developers</h1>
      <p>The developer portal is on its way.</p>
    </section>
  );
}
