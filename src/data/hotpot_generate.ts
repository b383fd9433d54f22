/**
 * A deterministic generator of HotpotQA-format distractor records over a made-up world: two gold articles and
 * eight distractors per record, about half of them lexical neighbours of the question's entities.
 * @module
 */
import { sha256Hex } from "../store/hash.ts";
import type { Article, HotpotRecord } from "./hotpot_record.ts";
import { SeededRandom } from "./hotpot_prng.ts";

/** The default seed of the shipped demo data. */
export const DEMO_DATA_SEED = "compaction-bench-demo";

/** Evidence characters below which distractors are lengthened (a demo history well over the 3,600 ceiling). */
const MIN_EVIDENCE_CHARS = 22000;

/** Tries at a namesake form before falling back to one with a fresh word. */
const NAMESAKE_ATTEMPTS = 40;

/** Distractor articles per record (HotpotQA: 2 gold + 8 distractors). */
const DISTRACTOR_COUNT = 8;

const SYLLABLES = (
  "ar bel cor dan el fen gal hol is jor kel lan mor nev or pel quin ros sal tor " +
  "ul val wen yor zan bra cri dro fle gri kro pla stra tri vor mir del sen ta lo"
).split(" ");
const CITY_SUFFIXES = ["ford", "haven", "mere", "by", "stad", "wick", "port", "dale"];
const COMPANY_SUFFIXES = ["Industries", "Works", "Labs", "Holdings", "Foundry", "Textiles", "Motors"];
const BAND_NOUNS = ["Lanterns", "Foxes", "Echoes", "Pilots", "Wolves", "Sparrows", "Engines", "Tides"];
const PROFESSIONS = ["architect", "painter", "novelist", "chemist", "composer", "engineer", "botanist"];
const GENRES = ["folk", "indie rock", "synth-pop", "jazz", "post-punk", "bluegrass"];
const INDUSTRIES = ["bicycle", "glassware", "textile", "furniture", "telescope", "clock"];
const MONTHS = ["March", "May", "July", "September", "October", "December"];
const CITY_PREFIXES = ["East", "West", "North", "South", "Upper", "Lower", "New", "Old"];
const RIVER_PREFIXES = ["Little", "East", "West", "North", "South"];

function withArticle(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

type Kind = "person" | "city" | "company" | "river" | "band";

interface BuiltArticle {
  kind: Kind;
  article: Article;
  facts: Record<string, number>;
}

/** Names, sentences and articles for one record, drawing on the shared set of used names. */
class WorldBuilder {
  readonly templatesUsed = new Map<string, Set<number>>();

  constructor(readonly rng: SeededRandom, readonly used: Set<string>) {}

  word(min: number, max: number): string {
    const n = this.rng.int(min, max);
    let w = "";
    for (let i = 0; i < n; i++) w += this.rng.pick(SYLLABLES);
    return w[0].toUpperCase() + w.slice(1);
  }

  unique(make: () => string): string {
    return this.tryUnique(make, Infinity)!; // unbounded tries: only an unused name ends them
  }

  /** An unused name from `make` within `attempts` tries (then marked used), or undefined. */
  tryUnique(make: () => string, attempts: number): string | undefined {
    for (let i = 0; i < attempts; i++) {
      const name = make();
      if (!this.used.has(name)) {
        this.used.add(name);
        return name;
      }
    }
    return undefined;
  }

  name(kind: Kind): string {
    const forms: Record<Kind, () => string> = {
      person: () => `${this.word(2, 2)} ${this.word(2, 3)}`,
      city: () => `${this.word(2, 3)}${this.rng.pick(CITY_SUFFIXES)}`,
      company: () => `${this.word(2, 3)} ${this.rng.pick(COMPANY_SUFFIXES)}`,
      river: () => `${this.word(2, 3)} River`,
      band: () => `The ${this.word(2, 3)} ${this.rng.pick(BAND_NOUNS)}`,
    };
    return this.unique(forms[kind]);
  }

  year(min = 1850, max = 2015): number {
    return this.rng.int(min, max);
  }

  /** A filler sentence from a template not in `usedTemplates` (which it extends), or null. */
  filler(kind: Kind, title: string, usedTemplates: Set<number>): string | null {
    const n = (min: number, max: number) => this.rng.int(min, max);
    const p = <T>(items: readonly T[]) => this.rng.pick(items);
    const w = () => this.word(2, 3);
    const y = () => this.year(1900, 2020);
    // `t`: the subject as the sentences name it (a person by the last name).
    const t = kind === "person" ? title.split(" ").slice(-1)[0] : title;
    const options: Record<Kind, (() => string)[]> = {
      person: [
        () => `${t} studied at the ${w()} Academy of Arts and Sciences, graduating with honours in ${y()}.`,
        () => `In ${y()}, ${t} received the ${w()} Prize for a lifetime of distinguished public work.`,
        () => `${t} has lived for many years in a small village near the ${w()} hills, far from any city.`,
        () => `Critics have repeatedly praised ${t}'s work for its careful attention to detail and form.`,
        () => `${t} served on the board of the ${w()} Cultural Society for ${n(3, 19)} consecutive years.`,
        () => `A biography titled "The ${w()} Years" was published about ${t} by a small regional press.`,
        () => `${t} is married and has ${n(2, 5)} children, several of whom followed the same career.`,
        () => `${t} speaks ${n(2, 6)} languages and often gives guest lectures at foreign universities.`,
        () => `Early in life, ${t} worked briefly as a clerk in the harbour offices of ${w()}.`,
        () => `${t} is a keen amateur astronomer and keeps a private observatory on the family estate.`,
        () => `${t} kept detailed diaries for most of their adult life, and parts of them were later edited.`,
        () => `Colleagues describe ${t} as patient, methodical and unusually generous with younger staff.`,
        () =>
          `${t} once spent a whole season travelling by rail through the ${w()} valley to gather material.`,
        () => `A portrait of ${t} by the painter ${w()} hangs in a regional gallery.`,
        () => `${t} has given away a large private library to the public reading room of ${w()}.`,
        () => `In interviews, ${t} has often named long walks and chess as lifelong pastimes.`,
        () => `${t} sat on a national advisory panel for ${n(2, 9)} years and wrote several of its reports.`,
      ],
      city: [
        () => `The city has a population of about ${n(12, 900) * 1000} people according to the last census.`,
        () => `${t} is known for its annual ${w()} festival, which is held every ${p(MONTHS)}.`,
        () => `Its old town contains more than ${n(40, 600)} listed buildings from several centuries.`,
        () => `The local economy relies mainly on ${p(INDUSTRIES)} making, shipping and tourism.`,
        () => `${t} is twinned with the distant town of ${w()}, and the two exchange students every year.`,
        () => `A tram network connecting the city centre with its growing suburbs was completed in ${y()}.`,
        () => `The ${w()} Museum, located near the central square, holds a large collection of old maps.`,
        () => `The climate is mild, with an average January temperature of ${n(1, 9)} degrees Celsius.`,
        () => `The municipal football club plays its home games at the ${w()} Stadium on the edge of town.`,
        () => `The city hall, rebuilt in ${y()} after a fire, dominates the main square.`,
        () => `Several bridges and a long promenade line the waterfront of ${t}.`,
        () => `The city hosts a small university with about ${n(2, 30) * 1000} students.`,
        () => `A weekly farmers' market has been held in the old cloth hall for generations.`,
        () => `The regional railway line reached ${t} in ${y()}, which changed its trade for good.`,
        () => `Local cuisine is known for smoked fish, dark rye bread and a sweet ${w()} pastry.`,
        () => `The oldest church in ${t} has a bell tower that can be climbed in summer.`,
      ],
      company: [
        () => `The company employs roughly ${n(2, 400) * 25} people across its offices and workshops.`,
        () =>
          `Its best-known product is the ${w()} series, which has been sold in more than ${
            n(5, 60)
          } countries.`,
        () => `${t} opened a second factory in the neighbouring district after a period of rapid growth.`,
        () => `${t} reported an annual revenue of about ${n(3, 900)} million in its most recent report.`,
        () =>
          `The firm has been listed on the ${w()} Exchange for several decades and pays a steady dividend.`,
        () => `${t} sponsors a youth football team and a scholarship for students of engineering.`,
        () =>
          `The company's logo, a stylised ${
            p(["heron", "anchor", "oak leaf", "compass", "star"])
          }, was redesigned in ${y()}.`,
        () => `In a widely reported dispute, ${t} settled a patent case with a competitor out of court.`,
        () => `Its headquarters moved to a converted warehouse in ${y()}.`,
        () => `${t} runs an apprenticeship programme that trains about ${n(10, 90)} people a year.`,
        () =>
          `The firm's annual report highlights exports to ${n(3, 40)} markets as its main source of growth.`,
        () => `A former chief engineer of ${t} later wrote a popular history of the trade.`,
        () => `${t} has won several design prizes for the packaging of its products.`,
        () => `The company keeps a small museum of its early machines at the main works.`,
        () => `Labour relations at ${t} have been calm since a long negotiation in ${y()}.`,
      ],
      river: [
        () => `The river rises in the ${w()} Mountains and descends through a series of narrow gorges.`,
        () => `Its drainage basin covers about ${n(500, 90000)} square kilometres of farmland and forest.`,
        () => `The ${t} is navigable for small boats along most of its lower course during the summer.`,
        () => `Several species of trout and grayling live in its cold and fast-flowing upper reaches.`,
        () => `A stone bridge built in ${y()} crosses the river near the village of ${w()}.`,
        () => `The river is known to freeze over completely in particularly cold winters.`,
        () => `Its main tributary is the ${w()} Brook, which joins it from the east.`,
        () => `Flooding along its banks led to the construction of a system of levees in the last century.`,
        () => `Anglers value its clear pools, and fishing permits are sold in the villages along its banks.`,
        () => `An old towpath follows the ${t} for much of its length and is now a cycling route.`,
        () => `Several water mills once stood on the river; one of them has been restored as a museum.`,
        () => `Its water level is measured at a gauging station near ${w()}.`,
        () => `The ${t} was used to float timber downstream until the early twentieth century.`,
        () => `Rare water birds nest in the reed beds of its wide lower valley.`,
        () => `A canal built in ${y()} links the ${t} with a neighbouring river basin.`,
      ],
      band: [
        () => `The band has released ${n(2, 14)} studio albums and a number of live recordings.`,
        () => `Their debut album, "${w()} ${p(BAND_NOUNS)}", was well received by the music press.`,
        () => `The group toured ${w()} and ${w()} extensively and built a loyal following abroad.`,
        () => `The band's line-up has changed ${n(1, 6)} times, but the lead singer has remained.`,
        () => `${t} won the ${w()} Music Award for best live act on two separate occasions.`,
        () => `Their music blends ${p(GENRES)} with elements of ${p(GENRES)} and traditional song.`,
        () => `A documentary about the band, filmed during a long winter tour, was released to good reviews.`,
        () => `The group rehearses in a converted barn outside ${w()} and records most of its albums there.`,
        () => `Their third album was produced by ${w()} and marked a turn towards a quieter sound.`,
        () => `The band has played more than ${n(3, 20) * 100} concerts since its first tour.`,
        () => `Fans know the group for long improvised endings to their best-known songs.`,
        () => `${t} once released a single only on vinyl, in a run of ${n(3, 20) * 100} copies.`,
        () => `A tribute album featuring younger artists covering their songs appeared in ${y()}.`,
        () => `The members of ${t} also run a small label for local musicians.`,
      ],
    };
    const free = options[kind].map((_, i) => i).filter((i) => !usedTemplates.has(i));
    if (free.length === 0) return null;
    const chosen = p(free);
    usedTemplates.add(chosen);
    return options[kind][chosen]();
  }

  /** An article: `intro` first, then key facts and fillers in shuffled order. */
  article(kind: Kind, title: string, intro: string, keys: Record<string, string>): BuiltArticle {
    const fillerCount = this.rng.int(5, 8);
    const body: { key?: string; text: string }[] = Object.entries(keys).map(([key, text]) => ({ key, text }));
    const usedTemplates = new Set<number>();
    for (let i = 0; i < fillerCount; i++) {
      const text = this.filler(kind, title, usedTemplates);
      if (text !== null) body.push({ text });
    }
    const ordered = [{ key: "intro", text: intro }, ...this.rng.shuffle(body)];
    const facts = Object.fromEntries(ordered.flatMap((s, i) => s.key === undefined ? [] : [[s.key, i]]));
    this.templatesUsed.set(title, usedTemplates);
    return { kind, article: { title, sentences: ordered.map((s) => s.text) }, facts };
  }

  /** A new name of `kind` sharing a word with `of` ("East Corbelhaven", "Little … River"), as HotpotQA's retrieval. */
  namesake(kind: Kind, of: string): string {
    const parts = of.split(" ");
    const last = parts[parts.length - 1];
    // Forms with few variants run out over thousands of records: then a form with a fresh word.
    const shared = (make: () => string, fallback: () => string) =>
      this.tryUnique(make, NAMESAKE_ATTEMPTS) ?? fallback();
    switch (kind) {
      case "person":
        return this.unique(() => `${this.word(2, 2)} ${last}`);
      case "city":
      case "river": {
        const prefixes = kind === "city" ? CITY_PREFIXES : RIVER_PREFIXES;
        return shared(() => `${this.rng.pick(prefixes)} ${of}`, () => this.name(kind));
      }
      default: {
        // `[The ]STEM SUFFIX`: half the time the same stem with another suffix, else a fresh stem.
        const the = kind === "band" ? "The " : "";
        const fresh = () => `${the}${this.word(2, 3)} ${last}`;
        const stem = parts.slice(the === "" ? 0 : 1, -1).join(" ");
        const others = (kind === "band" ? BAND_NOUNS : COMPANY_SUFFIXES).filter((x) => x !== last);
        const sameStem = () => `${the}${stem} ${this.rng.pick(others)}`;
        return this.rng.next() < 0.5 ? shared(sameStem, () => this.unique(fresh)) : this.unique(fresh);
      }
    }
  }

  /** A person; `cousinOf`, `peerOf` and `founderOf` add the relation to their sentences. */
  person(
    opts: {
      title?: string;
      birthCity?: string;
      profession?: string;
      founded?: { company: string; year: number };
      cousinOf?: string;
      peerOf?: string;
      founderOf?: string;
    } = {},
  ): BuiltArticle {
    const title = opts.title ?? this.name("person");
    const last = title.split(" ").slice(-1)[0];
    const profession = opts.profession ?? this.rng.pick(PROFESSIONS);
    const birthCity = opts.birthCity ?? this.name("city");
    const keys: Record<string, string> = {
      born: opts.cousinOf === undefined
        ? `${last} was born in the city of ${birthCity} and grew up there.`
        : `${title}, a cousin of ${opts.cousinOf}, was born in the city of ${birthCity}.`,
    };
    if (opts.founded) keys.founded = `In ${opts.founded.year}, ${last} founded ${opts.founded.company}.`;
    if (opts.peerOf !== undefined) {
      keys.peer = `${last} studied alongside ${opts.peerOf} at the ${this.word(2, 3)} Academy.`;
    }
    if (opts.founderOf !== undefined) {
      keys.founder = `${last} is best known as the founder of ${opts.founderOf}.`;
    }
    return this.article(
      "person",
      title,
      `${title} (born ${this.year(1900, 1990)}) is ${withArticle(profession)} from the ${
        this.word(2, 3)
      } region.`,
      keys,
    );
  }

  /** A city; `near` names the city it neighbours, `bandHome` a band formed there. */
  city(
    opts: { title?: string; river?: string; founded?: number; near?: string; bandHome?: string } = {},
  ): BuiltArticle {
    const title = opts.title ?? this.name("city");
    const where = opts.near === undefined ? "" : `, some ${this.rng.int(8, 90)} kilometres from ${opts.near}`;
    const keys: Record<string, string> = {
      river: `${title} lies on the banks of the ${opts.river ?? this.name("river")}.`,
      founded: `${title} was founded in ${opts.founded ?? this.year(1000, 1900)}.`,
    };
    if (opts.bandHome !== undefined) {
      keys.band = `${opts.bandHome} were formed in ${title}, and the band still plays there every ${
        this.rng.pick(MONTHS)
      }.`;
    }
    return this.article("city", title, `${title} is a city in the ${this.word(2, 3)} region${where}.`, keys);
  }

  company(
    opts: { title?: string; founder?: string; year?: number; hq?: string; rivalOf?: string } = {},
  ): BuiltArticle {
    const title = opts.title ?? this.name("company");
    const rival = opts.rivalOf === undefined ? "" : ` as a rival to ${opts.rivalOf}`;
    return this.article("company", title, `${title} is a ${this.rng.pick(INDUSTRIES)} manufacturer.`, {
      founded: `${title} was founded by ${opts.founder ?? this.name("person")} in ${
        opts.year ?? this.year()
      }${rival}.`,
      hq: `The company is headquartered in ${opts.hq ?? this.name("city")}.`,
    });
  }

  river(opts: { title?: string; length?: number; tributaryOf?: string } = {}): BuiltArticle {
    const title = opts.title ?? this.name("river");
    const into = opts.tributaryOf === undefined ? "" : ` and a tributary of the ${opts.tributaryOf}`;
    return this.article("river", title, `The ${title} is a river in the ${this.word(2, 3)} region${into}.`, {
      length: `The ${title} is ${opts.length ?? this.rng.int(40, 2400)} kilometres long.`,
    });
  }

  band(opts: { title?: string; city?: string; year?: number; sharedBillWith?: string } = {}): BuiltArticle {
    const title = opts.title ?? this.name("band");
    const keys: Record<string, string> = {
      formed: `${title} were formed in ${opts.city ?? this.name("city")} in ${
        opts.year ?? this.year(1960, 2015)
      }.`,
    };
    if (opts.sharedBillWith !== undefined) {
      keys.bill = `${title} have often shared a bill with ${opts.sharedBillWith}.`;
    }
    return this.article("band", title, `${title} are ${withArticle(this.rng.pick(GENRES))} band.`, keys);
  }

  /** Two different integers in [min, max]. */
  twoInts(min: number, max: number): [number, number] {
    const a = this.rng.int(min, max);
    let b = this.rng.int(min, max);
    while (b === a) b = this.rng.int(min, max);
    return [a, b];
  }
}

/** A question, its answer, its two gold articles (with their supporting sentences) and its distractors. */
interface Question {
  question: string;
  answer: string;
  gold: [BuiltArticle, string][];
  related: BuiltArticle[];
  kinds: Kind[];
}

function bridgeQuestion(w: WorldBuilder): Question {
  switch (w.rng.int(0, 3)) {
    case 0: {
      const city = w.name("city");
      const river = w.name("river");
      const p = w.person({ birthCity: city });
      const c = w.city({ title: city, river });
      const person = p.article.title;
      const cousinCity = w.name("city");
      return {
        question: `Which river flows through the city where ${person} was born?`,
        answer: river,
        gold: [[p, "born"], [c, "river"]],
        related: [
          w.person({ title: w.namesake("person", person), cousinOf: person, birthCity: cousinCity }),
          w.city({ title: cousinCity }),
          w.city({ title: w.namesake("city", city), near: city }),
          w.person({ peerOf: person }),
        ],
        kinds: ["person", "city"],
      };
    }
    case 1: {
      const city = w.name("city");
      const founded = w.year(1000, 1900);
      const b = w.band({ city });
      const c = w.city({ title: city, founded });
      const band = b.article.title;
      const otherCity = w.name("city");
      return {
        question: `In what year was the city where ${band} were formed founded?`,
        answer: String(founded),
        gold: [[b, "formed"], [c, "founded"]],
        related: [
          w.band({ title: w.namesake("band", band), city: otherCity, sharedBillWith: band }),
          w.city({ title: otherCity }),
          w.city({ title: w.namesake("city", city), near: city }),
          w.band({ sharedBillWith: band }),
        ],
        kinds: ["band", "city"],
      };
    }
    case 2: {
      const founder = w.name("person");
      const birthCity = w.name("city");
      const co = w.company({ founder });
      const p = w.person({ title: founder, birthCity });
      const company = co.article.title;
      const rival = w.namesake("company", company);
      const rivalFounder = w.name("person");
      const rivalYear = w.year();
      return {
        question: `In which city was the founder of ${company} born?`,
        answer: birthCity,
        gold: [[co, "founded"], [p, "born"]],
        related: [
          w.company({ title: rival, founder: rivalFounder, year: rivalYear, rivalOf: company }),
          w.person({ title: rivalFounder, founded: { company: rival, year: rivalYear } }),
          w.person({ title: w.namesake("person", founder), cousinOf: founder }),
          w.company({ rivalOf: company }),
        ],
        kinds: ["company", "person"],
      };
    }
    default: {
      const company = w.name("company");
      const hq = w.name("city");
      const year = w.year();
      const p = w.person({ founded: { company, year } });
      const person = p.article.title;
      const co = w.company({ title: company, founder: person, year, hq });
      const cousin = w.namesake("person", person);
      const rival = w.namesake("company", company);
      const rivalYear = w.year();
      return {
        question: `In which city is the company founded by ${person} headquartered?`,
        answer: hq,
        gold: [[p, "founded"], [co, "hq"]],
        related: [
          w.person({ title: cousin, cousinOf: person, founded: { company: rival, year: rivalYear } }),
          w.company({ title: rival, founder: cousin, year: rivalYear, rivalOf: company }),
          w.person({ peerOf: person }),
          w.company({ rivalOf: company }),
        ],
        kinds: ["person", "company"],
      };
    }
  }
}

/**
 * A comparison of `pair` (gold sentence `key` of each): `ask` gives the question and answer from their titles;
 * the neighbours are a namesake of each (`relative(title, of)`), then `other(of, i)` of each.
 */
function comparison(
  w: WorldBuilder,
  pair: BuiltArticle[],
  key: string,
  ask: (ta: string, tb: string) => [string, string],
  relative: (title: string, of: string) => BuiltArticle,
  other: (of: string, i: number) => BuiltArticle,
): Question {
  const kind = pair[0].kind;
  const titles = pair.map((p) => p.article.title);
  const [question, answer] = ask(titles[0], titles[1]);
  const namesakes = titles.map((of) => relative(w.namesake(kind, of), of));
  return {
    question,
    answer,
    gold: pair.map((p): [BuiltArticle, string] => [p, key]),
    related: [...namesakes, ...titles.map(other)],
    kinds: [kind],
  };
}

function comparisonQuestion(w: WorldBuilder): Question {
  switch (w.rng.int(0, 3)) {
    case 0: {
      const [ya, yb] = w.twoInts(1820, 2015);
      const founders = [w.name("person"), w.name("person")];
      return comparison(
        w,
        [w.company({ year: ya, founder: founders[0] }), w.company({ year: yb, founder: founders[1] })],
        "founded",
        (ta, tb) => [`Which company was founded first, ${ta} or ${tb}?`, ya < yb ? ta : tb],
        (title, of) => w.company({ title, rivalOf: of }),
        (of, i) => w.person({ title: founders[i], founderOf: of }),
      );
    }
    case 1: {
      const [la, lb] = w.twoInts(40, 2400);
      return comparison(
        w,
        [w.river({ length: la }), w.river({ length: lb })],
        "length",
        (ta, tb) => [`Which river is longer, the ${ta} or the ${tb}?`, la > lb ? ta : tb],
        (title, of) => w.river({ title, tributaryOf: of }),
        (of) => w.city({ river: of }),
      );
    }
    case 2: {
      const profession = w.rng.pick(PROFESSIONS);
      const same = w.rng.next() < 0.5;
      let other = w.rng.pick(PROFESSIONS);
      while (!same && other === profession) other = w.rng.pick(PROFESSIONS);
      return comparison(
        w,
        [w.person({ profession }), w.person({ profession: same ? profession : other })],
        "intro",
        (ta, tb) => [`Are ${ta} and ${tb} both ${profession}s?`, same ? "yes" : "no"],
        (title, of) => w.person({ title, cousinOf: of }),
        (of) => w.person({ peerOf: of }),
      );
    }
    default: {
      const [ya, yb] = w.twoInts(1960, 2015);
      const cities = [w.name("city"), w.name("city")];
      return comparison(
        w,
        [w.band({ year: ya, city: cities[0] }), w.band({ year: yb, city: cities[1] })],
        "formed",
        (ta, tb) => [`Were ${ta} formed before ${tb}?`, ya < yb ? "yes" : "no"],
        (title, of) => w.band({ title, sharedBillWith: of }),
        (of, i) => w.city({ title: cities[i], bandHome: of }),
      );
    }
  }
}

const ALL_KINDS: Kind[] = ["person", "city", "company", "river", "band"];

/** Generates `count` HotpotQA distractor records from `seed` (same arguments, same records). */
export function generateHotpotRecords(count: number, seed: string = DEMO_DATA_SEED): HotpotRecord[] {
  const used = new Set<string>();
  const records: HotpotRecord[] = [];
  for (let index = 0; index < count; index++) {
    const w = new WorldBuilder(new SeededRandom(`${seed}:${index}`), used);
    const type = index % 2 === 0 ? "bridge" : "comparison";
    const q = type === "bridge" ? bridgeQuestion(w) : comparisonQuestion(w);
    // The retrieved neighbours first, then unrelated articles (of the question's kinds, then any kind).
    const distractors = [...q.related];
    for (let i = 0; distractors.length < DISTRACTOR_COUNT; i++) {
      const kind = i < 2 ? q.kinds[i % q.kinds.length] : w.rng.pick(ALL_KINDS);
      distractors.push(w[kind]()); // an unrelated article with default options
    }
    const articles = () => [...q.gold.map(([g]) => g.article), ...distractors.map((d) => d.article)];
    let open = [...distractors];
    const refilled = new Set<string>();
    const evidenceChars = () => articles().reduce((n, a) => a.sentences.reduce((m, s) => m + s.length, n), 0);
    while (evidenceChars() < MIN_EVIDENCE_CHARS && open.length > 0) {
      const target = w.rng.pick(open);
      const title = target.article.title;
      const used = w.templatesUsed.get(title) ?? new Set<number>();
      const sentence = w.filler(target.kind, title, used);
      if (sentence !== null) target.article.sentences.push(sentence);
      else if (!refilled.has(title)) {
        refilled.add(title);
        w.templatesUsed.set(title, new Set<number>());
      } else open = open.filter((d) => d !== target);
    }
    const context = w.rng.shuffle(articles());
    records.push({
      id: sha256Hex(`${seed}:${index}:id`).slice(0, 24), // 24 hex characters, like HotpotQA's `_id`s
      question: q.question,
      answer: q.answer,
      type,
      level: w.rng.pick(["easy", "medium", "hard"]),
      supporting_facts: q.gold.map(([g, key]) => ({ title: g.article.title, sent_id: g.facts[key] })),
      context,
    });
  }
  return records;
}
