/**
 * The report explorer in a real headless Chromium: small real hotpot, sweep and engines runs' report.html,
 * opened from file://, render their explorer, reach every question (generation × context, needle and probe)
 * id, and their filters change what is shown. Without a browser every test here is reported as ignored (not
 * passed) after a loud banner naming the reason; `.ci/run` lists them with that reason (CI installs Debian's
 * chromium when it can).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { findChromium, openPage } from "./helpers/headless_chromium.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

const browser = findChromium();
if (browser === null) {
  console.warn(
    "\n" + "!".repeat(78) +
      "\n!!! IGNORED: no Chromium found (/usr/bin/chromium, or CHROMIUM_BIN); the report explorers were NOT " +
      "tested in a browser.\n!!! Install it with: apt-get install -y chromium\n" + "!".repeat(78) + "\n",
  );
}

/** A test that needs the browser: ignored (reported as such, never as passed) when there is none. */
function browserTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: browser === null, fn });
}

browserTest(
  "the hotpot report explorer renders, reaches every question and filters in headless Chromium",
  async () => {
    const tmp = await Deno.makeTempDir({ prefix: "explorer-browser-" });
    try {
      const collect = await runCli([
        "hotpot",
        "collect",
        "-q",
        "--questions",
        "6",
        "--output",
        join(tmp, "c"),
      ]);
      assert.equal(collect.code, 0, collect.stderr);
      const run = await runCli([
        "hotpot",
        "run",
        "--reference",
        "-q",
        "--corpus",
        join(tmp, "c", "corpus.json"),
        "--compressions",
        "1",
        "--answers",
        "1",
        "--bootstrap",
        "200",
        "--output",
        join(tmp, "a"),
      ]);
      assert.equal(run.code, 0, run.stderr);
      const corpus = JSON.parse(await Deno.readTextFile(join(tmp, "c", "corpus.json")));
      const ids: string[] = corpus.questions.map((q: { id: string }) => q.id);
      const types: string[] = corpus.questions.map((q: { type: string }) => q.type);
      const page = await openPage(browser!, pathToFileURL(join(tmp, "a", "report.html")).href);
      try {
        // Rendered: the list holds every question, and nothing was fetched.
        const listed = await page.evaluate<string[]>(
          "[...document.querySelectorAll('#explorer-list li')].map((li) => li.dataset.id)",
        );
        assert.deepEqual(listed, ids);
        assert.equal(await page.evaluate<number>("performance.getEntriesByType('resource').length"), 0);
        // Every question id is reachable: following its link shows its detail view.
        const shown = await page.evaluate<string[]>(`(async () => {
        const out = [];
        for (const a of [...document.querySelectorAll('#explorer-list li a')]) {
          const changed = new Promise((r) => addEventListener('hashchange', r, { once: true }));
          a.click();
          await changed;
          const d = document.getElementById('explorer-detail');
          out.push(d.dataset.id + '|' + d.querySelector('h3').textContent + '|' + d.querySelectorAll('details').length);
        }
        return out;
      })()`);
        assert.equal(shown.length, ids.length);
        shown.forEach((line, i) => {
          const [id, heading, sections] = line.split("|");
          assert.equal(id, ids[i]);
          assert.equal(heading, `question ${ids[i]}`);
          // Question, gold sentences, answers, and one context per method condition (full + 3 × 1 gen).
          assert.equal(Number(sections), 3 + 4);
        });
        // A context opens with its text, gold sentences marked where kept.
        const marked = await page.evaluate<string>(`(() => {
        const box = [...document.querySelectorAll('#explorer-detail details')].find((d) =>
          d.querySelector('summary').textContent.startsWith('Context full'));
        box.open = true;
        box.dispatchEvent(new Event('toggle'));
        return box.querySelectorAll('pre mark').length + '|' + box.querySelectorAll('td.kept').length;
      })()`);
        const [marks, keptCells] = String(marked).split("|").map(Number);
        assert.ok(marks > 0, "the Full context marks its gold supporting sentences");
        assert.ok(keptCells > 0, "each gold sentence the Full context holds is shown kept");
        // A filter changes what is shown: only bridge questions remain.
        const bridge = await page.evaluate<string[]>(`(() => {
        const sel = document.getElementById('filter-type');
        sel.value = 'bridge';
        sel.dispatchEvent(new Event('change'));
        return [...document.querySelectorAll('#explorer-list li')].map((li) => li.dataset.id);
      })()`);
        assert.deepEqual(bridge, ids.filter((_, i) => types[i] === "bridge"));
        assert.ok(bridge.length > 0 && bridge.length < ids.length);
        assert.match(
          await page.evaluate<string>("document.getElementById('explorer-count').textContent"),
          /of 6 shown/,
        );
      } finally {
        await page.close();
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
);

browserTest(
  "the sweep report explorer lists every generation × context with its context text, checks and reasons, and filters by kind in Chromium",
  async () => {
    const tmp = await Deno.makeTempDir({ prefix: "explorer-sweep-" });
    try {
      const out = join(tmp, "s");
      const run = await runCli([
        "sweep",
        "run",
        "--reference",
        "-q",
        "--compressions",
        "2",
        "--answers",
        "1",
        "--top-n",
        "1-2",
        "--bootstrap",
        "200",
        "--output",
        out,
      ]);
      assert.equal(run.code, 0, run.stderr);
      const rows: { kind: string; generation: number }[] = JSON.parse(
        await Deno.readTextFile(join(out, "results.json")),
      );
      const ids = [...new Set(rows.map((r) => `gen=${r.generation} ${r.kind}`))];
      const page = await openPage(browser!, pathToFileURL(join(out, "report.html")).href);
      try {
        const listed = await page.evaluate<string[]>(
          "[...document.querySelectorAll('#explorer-list li')].map((li) => li.dataset.id)",
        );
        assert.deepEqual([...listed].sort(), [...ids].sort());
        const details = await page.evaluate<string[]>(`(async () => {
        const out = [];
        for (const a of [...document.querySelectorAll('#explorer-list li a')]) {
          const changed = new Promise((r) => addEventListener('hashchange', r, { once: true }));
          a.click();
          await changed;
          const d = document.getElementById('explorer-detail');
          out.push(d.dataset.id + '|' + [...d.querySelectorAll('td')].map((td) => td.textContent).join(' '));
        }
        return out;
      })()`);
        assert.equal(details.length, ids.length);
        // Every condition shows its facts and its repair checks with their outcome.
        for (const line of details) assert.match(line, /fact: .* repair: /);
        // A failed repair check says why (the reference model's S writes no code block: its repair fails).
        assert.ok(
          details.some((line) => /repair: \S+ ✗ failed the answer has no ```js code block/.test(line)),
          "a failed repair check shows its reason",
        );
        // Every condition shows the context it was answered from (opened on demand) and what it kept verbatim.
        const contexts = await page.evaluate<{ id: string; text: string; kept: string }[]>(`(async () => {
        const out = [];
        for (const a of [...document.querySelectorAll('#explorer-list li a')]) {
          const changed = new Promise((r) => addEventListener('hashchange', r, { once: true }));
          a.click();
          await changed;
          const d = document.getElementById('explorer-detail');
          const keptRow = [...d.querySelectorAll('tr')]
            .find((tr) => tr.querySelector('th')?.textContent === 'evidence units kept verbatim');
          const box = [...d.querySelectorAll('details')]
            .find((b) => b.querySelector('summary').textContent.startsWith('Context ('));
          if (box) box.open = true;
          await new Promise((r) => setTimeout(r, 0));
          const pre = box ? box.querySelector('pre') : null;
          out.push({
            id: d.dataset.id,
            text: pre ? pre.textContent : '',
            kept: keptRow ? keptRow.querySelector('td').textContent : '',
          });
        }
        return out;
      })()`);
        assert.equal(contexts.length, ids.length);
        for (const c of contexts) {
          assert.match(c.text, /^\[system\]\n/, `${c.id}: no context text`);
          if (c.id.endsWith(" full")) {
            assert.match(c.text, /\[tool\]\n/, `${c.id}: Full shows the original tool results`);
            continue;
          }
          assert.match(c.text, /<summary>\n/, `${c.id}: the summary S is in its context`);
          const n = /S\+Top(\d)$/.exec(c.id)?.[1];
          if (n === undefined) {
            assert.equal(c.kept, "none", `${c.id}: S keeps no unit verbatim`);
            assert.doesNotMatch(c.text, /<evidence>/);
            continue;
          }
          const kept = c.kept.split(", ");
          assert.equal(kept.length, Number(n), `${c.id}: lists its ${n} kept evidence unit(s)`);
          const block = c.text.slice(c.text.indexOf("<evidence>"));
          for (const unit of kept) {
            assert.ok(block.includes(`[evidence ${unit}:`), `${c.id}: ${unit} is in its context`);
          }
        }
        const onlyS = await page.evaluate<string[]>(`(() => {
        const sel = document.getElementById('filter-kind');
        sel.value = 'S';
        sel.dispatchEvent(new Event('change'));
        return [...document.querySelectorAll('#explorer-list li')].map((li) => li.dataset.id);
      })()`);
        assert.deepEqual(onlyS, ["gen=0 S", "gen=1 S"]);
      } finally {
        await page.close();
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
);

browserTest(
  "the engines report explorer reaches every needle and probe and filters by kind and loss in Chromium",
  async () => {
    const tmp = await Deno.makeTempDir({ prefix: "explorer-engines-" });
    try {
      const out = join(tmp, "e");
      const run = await runCli([
        "engines",
        "run",
        "--reference",
        "-q",
        "--turns",
        "30",
        "--needles",
        "3",
        "--probes",
        join(ROOT, "tests", "engines_fixtures", "hermes_session_small.probes.json"),
        "--repeats",
        "0",
        "--budget",
        "10%,50%",
        "--engine",
        "full",
        "--engine",
        "truncate",
        "--bootstrap",
        "200",
        "--output",
        out,
      ]);
      assert.equal(run.code, 0, run.stderr);
      const results = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
      const needleIds: string[] = results.transcript.needles.map((n: { id: string }) => n.id);
      const probeIds = ["rate-limit", "db-port", "service", "branch"];
      const ids = [...needleIds, ...probeIds];
      assert.equal(needleIds.length, 3);
      const page = await openPage(browser!, pathToFileURL(join(out, "report.html")).href);
      try {
        const listed = await page.evaluate<string[]>(
          "[...document.querySelectorAll('#explorer-list li')].map((li) => li.dataset.id)",
        );
        assert.deepEqual(listed, ids);
        assert.equal(await page.evaluate<number>("performance.getEntriesByType('resource').length"), 0);
        // Every needle and probe is reachable, each with one row per engine and budget.
        const shown = await page.evaluate<string[]>(`(async () => {
        const out = [];
        for (const a of [...document.querySelectorAll('#explorer-list li a')]) {
          const changed = new Promise((r) => addEventListener('hashchange', r, { once: true }));
          a.click();
          await changed;
          const d = document.getElementById('explorer-detail');
          const rows = [...d.querySelectorAll('details')[1].querySelectorAll('tbody tr')]
            .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent).slice(0, 3).join(','));
          out.push(d.dataset.id + '|' + d.querySelector('h3').textContent + '|' + rows.join(';'));
        }
        return out;
      })()`);
        assert.equal(shown.length, ids.length);
        shown.forEach((line, i) => {
          const [id, heading, rows] = line.split("|");
          assert.equal(id, ids[i]);
          assert.equal(heading, `needle or probe ${ids[i]}`);
          const engines = rows.split(";").map((r) => r.split(",")[0]);
          assert.deepEqual(engines, ["full @10%", "truncate @10%", "full @50%", "truncate @50%"]);
          // Full keeps every needle verbatim; a probe has no verbatim fact.
          assert.match(rows.split(";")[0], i < 3 ? /,ok,✓ kept$/ : /,ok,n\/a$/);
        });
        const filter = (id: string, value: string) =>
          page.evaluate<string[]>(`(() => {
          const sel = document.getElementById('filter-${id}');
          sel.value = ${JSON.stringify(value)};
          sel.dispatchEvent(new Event('change'));
          return [...document.querySelectorAll('#explorer-list li')].map((li) => li.dataset.id);
        })()`);
        // A filter changes what is shown: probes only, then back to all and needles lost by truncate at 10%.
        assert.deepEqual(await filter("kind", "probe"), probeIds);
        assert.match(
          await page.evaluate<string>("document.getElementById('explorer-count').textContent"),
          /^4 of 7 shown$/,
        );
        await filter("kind", "");
        const lost = results.engines.find((r: { engine: string; budget: string }) =>
          r.engine === "truncate" && r.budget === "10%"
        );
        const lostIds = needleIds.filter((id) => !lost.needles.found_ids.includes(id));
        assert.ok(lostIds.length > 0, "truncate at 10% loses the early needles");
        assert.deepEqual(await filter("lost", "truncate @10%"), lostIds);
        assert.deepEqual(
          await filter("lost", "kept by every engine"),
          needleIds.filter((id) => !lostIds.includes(id)),
        );
      } finally {
        await page.close();
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
);
