// Sources: the tenant's document collections (GET /corpora, the bundled `climate` first), a form that
// makes one, and a collection's own page: its documents, an upload zone (drag and drop, or the file
// picker it is built on) with each file's outcome, and deleting a document or the whole collection.
// Every refusal is the API's problem detail, in words.
//
// Uploads: on a stack each file goes straight to its bucket by a presigned POST (POST
// /corpora/{name}/uploads gives the form; the API function takes at most 6 MB a request, a document
// may be 25), and the index function reads it in: the file is pending until then. The local server
// answers that request 409 presigned_uploads_unavailable: there the files go in one PUT
// /corpora/{name}/documents (multipart), read at once.

import { ApiError, api } from "./api.js";
import { errorBox, h, mount, plural, tierBadge, when } from "./ui.js";

// The API's limit a document (evidence/documents.py MAX_DOCUMENT_BYTES): a larger file is refused
// here, before 25 MB crosses the network only to be turned away.
const MAX_FILE_BYTES = 25 * 1024 * 1024;
const ACCEPT = ".pdf,.html,.htm,.xhtml,.md,.markdown,.txt,.text,.docx";
const KINDS = { pdf: "PDF", html: "HTML", markdown: "Markdown", text: "Text", docx: "DOCX" };
// The outcome of a file, worded and coloured as a verdict pill is (the same contrast-checked colours).
const OUTCOME = {
  added: ["Added", "supported"], replaced: ["Replaced", "conflicting"], unchanged: ["Unchanged", "not-enough-evidence"],
  skipped: ["Skipped", "refuted"], "not sent": ["Not sent", "refuted"], refused: ["Refused", "refuted"],
  pending: ["Pending", "not-enough-evidence"],
};
const LAST_UPLOAD = (name) => `cc.upload.${name}`;
// Learnt from the server's 409 (presigned uploads are a stack's): this page's uploads go through the API.
let direct = false;

/** "5 KB", "2.4 MB": a size as a person reads it (as the API's own messages say it). */
export function bytes(size) {
  const mb = 1024 * 1024;
  if (size < mb / 10) return `${Math.max(size ? 1 : 0, Math.round(size / 1024))} KB`;
  return `${(size / mb).toFixed(size < 10 * mb ? 1 : 0)} MB`;
}

/** What S3 said of a refused POST: its XML error's Message (the status if there is none). */
async function bucketMessage(response) {
  const text = await response.text().catch(() => "");
  const said = new DOMParser().parseFromString(text, "application/xml").querySelector("Error > Message")?.textContent;
  return said || `HTTP ${response.status}`;
}

// A cell named for the narrow layout (table.stack): its content in one span, so that it is one item
// of the cell's grid there, beside its name.
function cell(label, ...content) {
  return h("td", { "data-label": label }, h("span", ...content));
}

function numCell(label, value) {
  return h("td.num", { "data-label": label }, h("span", value));
}

export function render(view, name) {
  return name ? collectionPage(view, name) : listPage(view);
}

// ---------------------------------------------------------------- the list, and a new collection

function listPage(view) {
  const list = h("div#corpora-list", h("p.muted", "Loading…"));
  const columns = ["Name", "Tier", "Documents", "Passages", "Version", "Size", "Made"];
  api("/corpora").then(({ corpora }) => {
    mount(list, h("table.stack#corpora-table",
      h("thead", h("tr", columns.map((c, i) => h(i > 1 && i < 6 && i !== 4 ? "th.num" : "th", c)))),
      h("tbody", corpora.map((c) => h("tr", { "data-corpus": c.name },
        cell("Name", h("a", { href: `#/sources/${c.name}` }, c.name),
          c.bundled ? [" ", h("span.tag", { title: "Every tenant's; it cannot be changed" }, "bundled, read-only")] : null),
        cell("Tier", tierBadge(c.tier)),
        numCell("Documents", c.bundled ? "—" : c.documents.toLocaleString()),
        numCell("Passages", c.passages.toLocaleString()),
        cell("Version", h("span.mono.small", { title: c.version }, c.version.slice(0, 12))),
        numCell("Size", c.bundled ? "—" : bytes(c.size)),
        cell("Made", c.created_at ? when(c.created_at) : "—"))))),
    corpora.some((c) => !c.bundled) ? null
      : h("p.muted#no-corpora", "No collection of your own yet: make one below, then add your documents to it."));
  }, (err) => mount(list, errorBox(err)));

  mount(view,
    h("section.card", { "aria-labelledby": "sources-title" },
      h("h1#sources-title", "Sources"),
      h("p.muted", "Collections of your own documents (PDF, HTML, Markdown, text, DOCX) that a run can search",
        " instead of, or as well as, the bundled climate corpus: pick them on the Run page. The verdict cites the",
        " page it read."),
      list),
    createForm());
}

function createForm() {
  const name = h("input#corpus-name", {
    type: "text", name: "name", maxlength: 63, autocomplete: "off", spellcheck: "false", required: true,
    "aria-describedby": "corpus-name-hint corpus-name-error",
  });
  const error = h("div.error#corpus-name-error", { role: "alert" });
  const tiers = h("div.segmented", { role: "radiogroup", "aria-label": "Tier" },
    [["T2", "T2: secondary"], ["T1", "T1: primary records"]].flatMap(([value, label]) => [
      h("input", { type: "radio", name: "tier", id: `corpus-tier-${value}`, value, checked: value === "T2" }),
      h("label", { for: `corpus-tier-${value}` }, label)]));
  const create = h("button.primary#corpus-create", { type: "submit" }, "Make collection");
  // The API checks the name (its 422 and 409 are shown at the field): the browser's own check would
  // say less, in other words.
  const form = h("form.card#corpus-form", { "aria-labelledby": "new-corpus-title", novalidate: true },
    h("h2#new-corpus-title", "New collection"),
    h("div.row.top-aligned",
      h("div.field.field-wide",
        h("label", { for: "corpus-name" }, "Name"), name,
        h("div.hint#corpus-name-hint", "Lower-case letters, digits, - and _, up to 63, starting with a letter or digit."),
        error),
      h("fieldset.field", h("legend", "Tier"), tiers)),
    h("p.small.muted", "T1 for primary records (filings, statistics, your own measurements); a web page's own address",
      " can still make its passages T1 in a T2 collection."),
    create);
  name.addEventListener("input", () => { error.textContent = ""; name.removeAttribute("aria-invalid"); });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    create.disabled = true;
    error.textContent = "";
    try {
      const made = await api("/corpora", { method: "POST", body: { name: name.value.trim(), tier: new FormData(form).get("tier") } });
      location.hash = `#/sources/${made.name}`; // straight to it: documents come next
    } catch (err) {
      error.textContent = err.message;
      name.setAttribute("aria-invalid", "true");
      name.focus();
    } finally {
      create.disabled = false;
    }
  });
  return form;
}

// ---------------------------------------------------------------- one collection

async function collectionPage(view, name) {
  mount(view, h("p.muted", "Loading…"));
  let listing;
  try {
    listing = await api(`/corpora/${encodeURIComponent(name)}/documents`);
  } catch (err) {
    mount(view, h("div.card", h("h1", name), errorBox(err instanceof ApiError && err.status === 404
      ? `There is no collection named ${name} (or it has been deleted).` : err),
    h("a", { href: "#/sources" }, "All sources")));
    return;
  }
  const summary = h("div#corpus-summary");
  const documents = h("div#documents");
  const message = h("div", { "aria-live": "polite" });
  const outcomes = h("section.card#upload-outcomes", { "aria-labelledby": "outcomes-title", hidden: true });

  function show({ corpus, documents: docs, uploads = [] }) {
    mount(summary,
      h("div.row.small.muted",
        tierBadge(corpus.tier),
        h("span", corpus.bundled ? plural(corpus.passages.toLocaleString(), "passage") : `${plural(corpus.documents, "document")}, ${plural(corpus.passages, "passage")}, ${bytes(corpus.size)}`),
        h("span", "version ", h("span.mono", { title: corpus.version }, corpus.version.slice(0, 12))),
        corpus.created_at ? h("span", `made ${when(corpus.created_at)}`) : null));
    if (corpus.bundled) {
      mount(documents, h("p#bundled-note",
        "The bundled corpus: sentences from Wikipedia's articles on climate (CLIMATE-FEVER), searched by a run that names no",
        " collection and no web search. Every tenant has it; it cannot be changed, and its articles are not listed here."));
      return;
    }
    // A stack's uploads not in yet: pending (the index function reads them in a minute or so), or
    // skipped with the reason.
    const waiting = uploads.length ? h("ul.outcomes#pending-uploads", uploads.map((u) => {
      const [word, colour] = OUTCOME[u.status] || [u.status, "not-enough-evidence"];
      return h("li", { "data-file": u.filename, "data-status": u.status },
        h(`span.pill.v-${colour}`, word), " ", h("span.mono", u.filename),
        u.reason ? h("div.small.reason", u.reason) : null);
    })) : null;
    if (!docs.length) {
      mount(documents, waiting, h("p.muted#no-documents", waiting ? "No documents in yet." : "No documents yet: add some above."));
      return;
    }
    const columns = ["Title", "Kind", "Pages", "Passages", "Published", "Source", "Added", ""];
    mount(documents, waiting, h("table.stack#documents-table",
      h("thead", h("tr", columns.map((c, i) => h(i === 2 || i === 3 ? "th.num" : "th", c)))),
      h("tbody", docs.map((d) => documentRow(d)))));
  }

  function documentRow(d) {
    const remove = h("button.danger", { type: "button", "aria-label": `Delete ${d.title}` }, "Delete");
    remove.addEventListener("click", async () => {
      if (!confirm(`Delete “${d.title}” (${d.source}) from ${name}? Its ${plural(d.passages, "passage")} go with it.`)) return;
      remove.disabled = true;
      try {
        await api(`/corpora/${encodeURIComponent(name)}/documents/${encodeURIComponent(d.id)}`, { method: "DELETE" });
        mount(message, h("p", `Deleted ${d.source}.`));
        await refresh();
      } catch (err) {
        remove.disabled = false;
        mount(message, errorBox(err));
      }
    });
    return h("tr", { "data-document": d.id },
      cell("Title", d.title),
      cell("Kind", KINDS[d.kind] || d.kind),
      numCell("Pages", d.pages ?? "—"),
      numCell("Passages", d.passages),
      cell("Published", d.published || "—"),
      cell("Source", h("span.mono.small", d.source)),
      cell("Added", when(d.added_at)),
      cell("", remove));
  }

  async function refresh() {
    try {
      listing = await api(`/corpora/${encodeURIComponent(name)}/documents`);
      show(listing);
    } catch (err) {
      mount(message, errorBox(err));
    }
  }

  // The last upload's outcome, kept for this tab: a skipped document is in no listing, so its reason
  // would be gone with the page otherwise.
  function showOutcomes(upload) {
    if (!upload) return;
    outcomes.hidden = false;
    const skipped = upload.files.filter((f) => !["added", "replaced", "unchanged", "pending"].includes(f.status)).length;
    mount(outcomes,
      h("h2#outcomes-title", "Last upload"),
      h("p.small.muted", `${when(upload.at)}: ${plural(upload.files.length, "file")}${skipped ? `, ${skipped} not added` : ", all in"}`),
      upload.error ? h("p.error#upload-error", { role: "alert" }, upload.error) : null,
      h("ul.outcomes", upload.files.map((f) => {
        const [word, colour] = OUTCOME[f.status] || [f.status, "not-enough-evidence"];
        return h("li", { "data-file": f.filename, "data-status": f.status },
          h(`span.pill.v-${colour}`, word), " ", h("span.mono", f.filename),
          f.document ? h("span.small.muted", ` ${plural(f.document.passages, "passage")}${f.document.pages ? `, ${plural(f.document.pages, "page")}` : ""}`) : null,
          f.reason ? h("div.small.reason", f.reason) : null);
      })));
  }

  async function upload(files) {
    if (!files.length) return;
    const refused = (f) => f.size > MAX_FILE_BYTES;
    const sending = files.filter((f) => !refused(f));
    const result = new Map(files.filter(refused).map((f) => [f, {
      filename: f.name, status: "not sent",
      reason: `${f.name} is ${bytes(f.size)}, over the ${bytes(MAX_FILE_BYTES)} limit a document: split it, or leave out what is not text`,
    }]));
    let error = null;
    if (sending.length) {
      zone.classList.add("busy");
      input.disabled = true;
      mount(message, h("p.muted", `Uploading ${plural(sending.length, "file")} (${bytes(sending.reduce((n, f) => n + f.size, 0))}) and indexing…`));
      try {
        const presigned = direct ? null : await toBucket(sending);
        if (presigned) for (const [f, outcome] of presigned) result.set(f, outcome);
        else error = await throughApi(sending, result);
      } finally {
        zone.classList.remove("busy");
        input.disabled = false;
        input.value = ""; // the same file chosen again is a new upload
      }
    }
    const kept = { at: new Date().toISOString(), error, files: files.map((f) => result.get(f)) };
    try { sessionStorage.setItem(LAST_UPLOAD(name), JSON.stringify(kept)); } catch { /* storage off: shown only now */ }
    mount(message);
    showOutcomes(kept);
    await refresh();
    outcomes.focus();
  }

  // A stack's way: each file to the bucket by its own presigned POST, its outcome pending (the index
  // function reads it) or refused with the reason. null: this server has no presigned uploads.
  async function toBucket(sending) {
    const each = new Map();
    for (const f of sending) {
      let ticket;
      try {
        ticket = await api(`/corpora/${encodeURIComponent(name)}/uploads`, { method: "POST", body: { filename: f.name } });
      } catch (err) {
        if (err instanceof ApiError && err.code === "presigned_uploads_unavailable" && !each.size) {
          direct = true;
          return null;
        }
        each.set(f, { filename: f.name, status: "refused", reason: err.message });
        continue;
      }
      const form = new FormData();
      for (const [field, value] of Object.entries(ticket.fields)) form.append(field, value);
      form.append("file", f, f.name); // last: S3 reads the fields before the file
      try {
        const sent = await fetch(ticket.url, { method: "POST", body: form });
        each.set(f, sent.ok ? { filename: f.name, status: "pending" }
          : { filename: f.name, status: "refused", reason: `the bucket refused it: ${await bucketMessage(sent)}` });
      } catch {
        each.set(f, { filename: f.name, status: "refused", reason: "it could not be sent to the bucket (the network, or the browser's policy)" });
      }
    }
    return each;
  }

  // The local server's way: every file in one multipart PUT, read at once. Returns the whole upload's
  // error, if it had one.
  async function throughApi(sending, result) {
    const body = new FormData();
    for (const f of sending) body.append("file", f, f.name);
    try {
      const reply = await api(`/corpora/${encodeURIComponent(name)}/documents`, { method: "PUT", body });
      // each file's outcome, in the order sent (the API answers in that order)
      sending.forEach((f, i) => result.set(f, reply.documents[i]));
      return null;
    } catch (err) {
      const each = err instanceof ApiError ? err.problem?.documents : null; // 422: nothing went in, each reason
      if (each?.length === sending.length) {
        sending.forEach((f, i) => result.set(f, each[i]));
        return null;
      }
      // 413 (the quota), a bad request: the whole upload, in the API's words
      for (const f of sending) result.set(f, { filename: f.name, status: "refused", reason: err.message });
      return err.message;
    }
  }

  const input = h("input#upload-input.drop-input", { type: "file", multiple: true, accept: ACCEPT, "aria-describedby": "upload-hint" });
  const zone = h("label.drop-zone#drop-zone", { for: "upload-input" },
    h("span.drop-title", "Drop files here, or choose files"),
    h("span.hint#upload-hint", "PDF, HTML, Markdown, text (UTF-8) or DOCX, several at once, up to 25 MB each. A file of the same name replaces the one before."),
    input);
  input.addEventListener("change", () => upload([...input.files]));
  // Space opens a focused file input; Enter does not in Chromium, and a button-like zone should.
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); input.click(); }
  });
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    if (!input.disabled) upload([...(e.dataTransfer?.files || [])]);
  });
  outcomes.tabIndex = -1;

  const bundled = listing.corpus.bundled;
  const remove = bundled ? null : h("button.danger#corpus-delete", { type: "button" }, "Delete collection");
  remove?.addEventListener("click", async () => {
    const held = listing.corpus;
    if (!confirm(`Delete the collection ${name}, with its ${plural(held.documents, "document")} and ${plural(held.passages, "passage")}? Runs that name it will be refused.`)) return;
    remove.disabled = true;
    try {
      await api(`/corpora/${encodeURIComponent(name)}`, { method: "DELETE" });
      sessionStorage.removeItem(LAST_UPLOAD(name));
      location.hash = "#/sources";
    } catch (err) {
      remove.disabled = false;
      mount(message, errorBox(err));
    }
  });

  mount(view,
    h("section.card", { "aria-labelledby": "corpus-title" },
      h("div.spread",
        h("div", h("div.small", h("a", { href: "#/sources" }, "Sources"), " /"), h("h1#corpus-title", name)),
        remove),
      summary),
    bundled ? null : h("section.card", { "aria-labelledby": "upload-title" }, h("h2#upload-title", "Add documents"), zone),
    message,
    outcomes,
    h("section.card", { "aria-labelledby": "documents-title" }, h("h2#documents-title", "Documents"), documents));
  show(listing);
  try { showOutcomes(JSON.parse(sessionStorage.getItem(LAST_UPLOAD(name)) || "null")); } catch { /* nothing kept */ }
}
