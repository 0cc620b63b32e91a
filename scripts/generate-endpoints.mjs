#!/usr/bin/env node
// Generates ontology/otee.ttl (the endpoint vocabulary, http://www.opentox.org/echaEndpoints.owl#)
// from the QMRF endpoint catalogue ../shared/qmrf/endpoints-EC-OECD-QMRF.xml.
//
//   node scripts/generate-endpoints.mjs [input.xml] [output.ttl]
//
// No dependencies. The catalogue is a flat list of <endpoint> elements inside three
// <acatalog> elements (EC test methods, OECD test guidelines, QMRF endpoint list); each
// endpoint has a group, a subgroup and a name that starts with its number ("3.3.Acute ...").
//
// Class hierarchy written:
//   otee:Endpoints
//     <group>                     one per (catalogue, group)
//       <subgroup>                QMRF: one per numbered level x.y whose endpoints are x.y.a, x.y.b ...
//                                 EC/OECD: one per subgroup shared by two or more methods of a group
//         <endpoint>              one per <endpoint> element
// A subgroup that does not become a class is kept in the endpoint's rdfs:comment.
//
// Local names (valid Turtle PN_LOCAL and XML NCName, ASCII only, never starting with a digit):
//   QMRF endpoints  the name without its number, every run of characters other than
//                   [A-Za-z0-9.-] replaced by "_"  (the OpenTox convention, e.g.
//                   "Octanol-water partition coefficient (Kow)" -> Octanol-water_partition_coefficient_Kow);
//                   a few names follow the spelling already used by OpenTox clients (KNOWN_QMRF).
//   QMRF groups and subgroups  CamelCase of the name (PhysicoChemicalEffects, PersistenceBiodegradation, ...).
//   EC / OECD       prefixed with the catalogue: EC_<method>_<Name_words> (EC_C1_Acute_toxicity_for_fish),
//                   OECD_TG<number>_<Name_words>, and EC_/OECD_ + CamelCase for groups and subgroups.
//   Names longer than MAX_LOCAL are cut at a word boundary; a name that would still be taken
//   twice gets the catalogue number as a suffix (Other_2_1_c; subgroups: the group number, EC_AcuteToxicity_G2).

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const input = resolve(repo, process.argv[2] ?? '../shared/qmrf/endpoints-EC-OECD-QMRF.xml');
const output = resolve(repo, process.argv[3] ?? 'ontology/otee.ttl');

const NS = 'http://www.opentox.org/echaEndpoints.owl#';
const ONTOLOGY_IRI = 'http://www.opentox.org/echaEndpoints.owl';
const MAX_LOCAL = 80;

// Catalogue ids in the XML -> how the catalogue appears in the vocabulary.
const CATALOGUES = {
  QMRF: { prefix: '', scheme: 'QMRFEndpointsList', what: 'QMRF endpoint' },
  EC: { prefix: 'EC_', scheme: 'ECTestMethods', what: 'EC test method (Regulation (EC) No 440/2008)' },
  OECD: { prefix: 'OECD_', scheme: 'OECDTestGuidelines', what: 'OECD test guideline' },
};

// Local names that OpenTox clients (AMBIT, ToxOtis) already use for QMRF entries, by number.
const KNOWN_QMRF_GROUPS = {
  1: 'PhysicoChemicalEffects',
  2: 'EnvironmentalFateParameters',
  3: 'EcotoxicEffects',
  4: 'HumanHealthEffects',
  5: 'ToxicoKinetics',
};
const KNOWN_QMRF = {
  '1.9': 'Air-water_partition_coefficient_Henry_s_law_constant_H',
  '4.1': 'AcuteInhalationToxicity',
  '4.2': 'AcuteOralToxicity',
  '4.3': 'AcuteDermalToxicity',
  '4.4': 'SkinIrritationCorrosion',
  '4.5': 'AcutePhotoirritation',
  '4.6': 'SkinSensitisation',
  '4.7': 'RespiratorySensitisation',
  '4.8': 'PhotoSensitisation',
  '4.11': 'PhotoMutagenicity',
  '4.13': 'PhotoCarcinogenicity',
  '4.14': 'RepeatedDoseToxicity',
  '4.15': 'InVitroReproductiveToxicity',
  '4.16': 'InVivoPreNatalDevelopmentToxicity',
  '4.17': 'In_vivo_pre-_peri-_post_natal_development_and_or_fertility_1_or_2_gen._Study_or_enhance',
  '4.18.b': 'Receptor_binding_and_gene_expression',
};

// ---------------------------------------------------------------- XML reading

const NAMED_ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (whole, ref) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    if (ref in NAMED_ENTITIES) return NAMED_ENTITIES[ref];
    throw new Error(`unknown XML entity ${whole}`);
  });
}

function attributes(tag) {
  const attrs = {};
  const re = /([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  for (const m of tag.matchAll(re)) {
    // Attribute values: entities decoded, white space normalised as XML does for CDATA attributes.
    attrs[m[1]] = decodeEntities((m[2] ?? m[3]).replace(/[\t\r\n]/g, ' '));
  }
  return attrs;
}

function readCatalogue(xml) {
  // Comments, processing instructions and CDATA sections cannot hold endpoints.
  const text = xml
    .replace(/^\uFEFF/, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '');
  const catalogues = [];
  const catRe = /<acatalog\b([^>]*)>([\s\S]*?)<\/acatalog\s*>/g;
  for (const cm of text.matchAll(catRe)) {
    const cat = attributes(cm[1]);
    const endpoints = [];
    for (const em of cm[2].matchAll(/<endpoint\b((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/g)) endpoints.push(attributes(em[1]));
    catalogues.push({ ...cat, endpoints });
  }
  if (catalogues.length === 0) throw new Error('no <acatalog> found');
  return catalogues;
}

// ---------------------------------------------------------------- names

const clean = (s) => s.replace(/\s+/g, ' ').trim();

/** "2.1.a.Hydrolysis " -> { number: "2.1.a", label: "Hydrolysis" }; "303A.Biofilms" -> "303A". */
function splitNumber(s) {
  const m = /^((?:\d+[A-Z]?\.)+(?:[a-z]\.)?)\s*(.*)$/.exec(clean(s));
  if (!m || !m[2]) return { number: '', label: clean(s) };
  return { number: m[1].replace(/\.$/, ''), label: m[2] };
}

const GREEK = { α: 'alpha', β: 'beta', γ: 'gamma', δ: 'delta', κ: 'kappa', μ: 'mu' };

/** ASCII form: Greek letters spelled out, accents dropped, typographic marks mapped. */
function ascii(s) {
  return s
    .replace(/[αβγδκμ]/g, (c) => GREEK[c])
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/[\u2018\u2019\u201a\u201b]/g, "'")
    .replace(/[^\x20-\x7e]/g, ' ');
}

/** OpenTox style: runs of characters other than [A-Za-z0-9.-] become "_". */
function underscored(s) {
  let n = ascii(s)
    .replace(/[^A-Za-z0-9.-]+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '');
  if (n.length > MAX_LOCAL) {
    const cut = n.lastIndexOf('_', MAX_LOCAL);
    n = n.slice(0, cut > 20 ? cut : MAX_LOCAL).replace(/[_.-]+$/, '');
  }
  return n;
}

/** "Persistence: Biodegradation" -> "PersistenceBiodegradation". */
function camel(s) {
  const n = ascii(s)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
  return n.length > MAX_LOCAL ? n.slice(0, MAX_LOCAL) : n;
}

/** The number of an EC method or OECD guideline as a name part: "B.1 bis." -> "B1bis". */
const compactNumber = (s) => ascii(s).replace(/[^A-Za-z0-9]+/g, '');

const PN_LOCAL = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function checkLocal(name) {
  if (!PN_LOCAL.test(name) || name.endsWith('.')) throw new Error(`invalid local name: ${name}`);
  return name;
}

const groupKey = (s) => ascii(s).toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

// ---------------------------------------------------------------- model

function build(catalogues) {
  const classes = []; // { local, label, parent, notation, id, scheme, comment, extra }
  const byLocal = new Map();

  for (const cat of catalogues) {
    const conf = CATALOGUES[cat.id];
    if (!conf) throw new Error(`unknown catalogue id ${cat.id}`);
    const catName = clean(cat.name ?? cat.id);

    // Pass 1: groups and the subgroups that will become classes.
    const groups = new Map(); // key -> group node
    const entries = cat.endpoints.map((e) => {
      const g = splitNumber(e.group ?? '');
      const sg = splitNumber(e.subgroup ?? '');
      const ep = splitNumber(e.name ?? '');
      if (!ep.label) throw new Error(`endpoint ${e.id} has no name`);
      const gk = groupKey(g.label) || 'ungrouped';
      if (!groups.has(gk)) groups.set(gk, { label: g.label || 'Other', number: g.number, subgroups: new Map() });
      const group = groups.get(gk);
      // The key of the subgroup within its group, or null when it is not a class.
      let sk = null;
      if (cat.id === 'QMRF') {
        const parts = ep.number.split('.');
        if (parts.length === 3 && sg.label) sk = parts.slice(0, 2).join('.');
      } else if (sg.label) {
        sk = groupKey(sg.label);
      }
      if (sk) {
        if (!group.subgroups.has(sk)) group.subgroups.set(sk, { label: sg.label, number: cat.id === 'QMRF' ? sk : sg.number, members: 0 });
        group.subgroups.get(sk).members++;
      }
      return { e, ep, sg, group, sk };
    });

    // Group and subgroup classes.
    for (const group of groups.values()) {
      const known = cat.id === 'QMRF' ? KNOWN_QMRF_GROUPS[group.number] : undefined;
      group.node = {
        local: known ?? conf.prefix + camel(group.label),
        label: group.label,
        parent: 'Endpoints',
        notation: group.number,
        scheme: conf.scheme,
        comment: `Group ${group.number ? group.number + ' ' : ''}of the ${catName} endpoint catalogue.`,
        kind: 'group',
      };
      classes.push(group.node);
      for (const [sk, sub] of group.subgroups) {
        if (cat.id !== 'QMRF' && sub.members < 2) continue;
        sub.node = {
          local: conf.prefix + camel(sub.label),
          label: sub.label,
          parent: group.node,
          notation: cat.id === 'QMRF' ? sk : '',
          disambiguator: cat.id === 'QMRF' ? sk : `G${group.number || '0'}`,
          scheme: conf.scheme,
          comment: `Subgroup of "${group.label}" in the ${catName} endpoint catalogue.`,
          kind: 'subgroup',
        };
        classes.push(sub.node);
      }
    }

    // Endpoint classes.
    for (const { e, ep, sg, group, sk } of entries) {
      const sub = sk ? group.subgroups.get(sk) : undefined;
      const parent = sub?.node ?? group.node;
      let local;
      let methodNo = '';
      if (cat.id === 'QMRF') {
        local = KNOWN_QMRF[ep.number] ?? underscored(ep.label);
      } else if (cat.id === 'EC') {
        methodNo = clean(e.echaNo ?? '').replace(/\.$/, '');
        local = `EC_${compactNumber(methodNo || ep.number)}_${underscored(ep.label)}`;
      } else {
        methodNo = clean(e.oecdNo ?? '') || ep.number;
        local = `OECD_TG${compactNumber(methodNo)}_${underscored(ep.label)}`;
      }
      const notes = [`${conf.what} ${cat.id === 'QMRF' ? ep.number : methodNo}`.trim() + '.'];
      notes.push(`Group: ${group.number ? group.number + ' ' : ''}${group.label}.`);
      if (sg.label && !sub?.node) notes.push(`Subgroup: ${sg.label}.`);
      if (e.species) notes.push(`Species: ${clean(e.species)}.`);
      if (e.organ) notes.push(`Organ: ${clean(e.organ)}.`);
      notes.push(`Catalogue: ${catName}, entry ${e.id}.`);
      classes.push({
        local,
        label: ep.label,
        parent,
        notation: ep.number,
        id: e.id,
        scheme: conf.scheme,
        echaNo: cat.id === 'EC' ? methodNo : '',
        oecdNo: cat.id === 'OECD' ? methodNo : '',
        comment: notes.join(' '),
        kind: 'endpoint',
      });
    }
  }

  // Disambiguation: a local name used by more than one class gets the number (or entry id).
  const count = new Map();
  for (const c of classes) count.set(c.local, (count.get(c.local) ?? 0) + 1);
  count.set('Endpoints', (count.get('Endpoints') ?? 0) + 1);
  for (const s of Object.values(CATALOGUES)) count.set(s.scheme, (count.get(s.scheme) ?? 0) + 1);
  for (const c of classes) {
    if (count.get(c.local) > 1) {
      const suffix = (c.disambiguator || c.notation || c.id || 'x').replace(/[^A-Za-z0-9]+/g, '_');
      c.local = `${c.local}_${suffix}`;
    }
  }
  for (const c of classes) {
    checkLocal(c.local);
    if (byLocal.has(c.local)) throw new Error(`duplicate local name ${c.local}`);
    byLocal.set(c.local, c);
  }
  return classes;
}

// ---------------------------------------------------------------- Turtle

function lit(s, lang) {
  const esc = s.replace(/[\\"\n\r\t]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]);
  return `"${esc}"${lang ? '@' + lang : ''}`;
}

function turtle(catalogues, classes, source) {
  const out = [];
  out.push(
    '# GENERATED by scripts/generate-endpoints.mjs from ' + source + ' -- do not edit by hand.',
    '',
    '@prefix otee:    <' + NS + '> .',
    '@prefix owl:     <http://www.w3.org/2002/07/owl#> .',
    '@prefix rdfs:    <http://www.w3.org/2000/01/rdf-schema#> .',
    '@prefix xsd:     <http://www.w3.org/2001/XMLSchema#> .',
    '@prefix dc:      <http://purl.org/dc/elements/1.1/> .',
    '@prefix dcterms: <http://purl.org/dc/terms/> .',
    '@prefix skos:    <http://www.w3.org/2004/02/skos/core#> .',
    '',
    '<' + ONTOLOGY_IRI + '>',
    '    a owl:Ontology ;',
    '    dc:title "ECHA / QMRF endpoints" ;',
    '    rdfs:label "ECHA / QMRF endpoints" ;',
    '    rdfs:comment ' +
      lit(
        'Endpoints of chemical properties and (eco)toxicological effects, for owl:sameAs of features. ' +
          'Derived from the QMRF endpoint catalogue, which lists the QMRF endpoints, the EC test methods (Regulation (EC) No 440/2008) and the OECD test guidelines. ' +
          'Every endpoint is a subclass (through its group) of otee:Endpoints; skos:notation holds its number in its catalogue, skos:inScheme the catalogue.',
      ) +
      ' ;',
    '    dcterms:source ' + lit(source) + ' .',
    '',
    'dc:title a owl:AnnotationProperty .',
    'dc:identifier a owl:AnnotationProperty .',
    'dcterms:source a owl:AnnotationProperty .',
    'skos:notation a owl:AnnotationProperty .',
    'skos:inScheme a owl:AnnotationProperty .',
    '',
    'otee:echaNo a owl:AnnotationProperty ;',
    '    rdfs:label "EC test method number" ;',
    '    rdfs:comment "The number of an EC test method in Regulation (EC) No 440/2008, e.g. \\"C.1\\"." ;',
    '    rdfs:range xsd:string .',
    '',
    'otee:oecdNo a owl:AnnotationProperty ;',
    '    rdfs:label "OECD test guideline number" ;',
    '    rdfs:comment "The number of an OECD test guideline, e.g. \\"471\\"." ;',
    '    rdfs:range xsd:string .',
    '',
  );
  for (const cat of catalogues) {
    const conf = CATALOGUES[cat.id];
    out.push(
      `otee:${conf.scheme} a skos:ConceptScheme ;`,
      `    dc:title ${lit(clean(cat.name ?? cat.id))} ;`,
      `    rdfs:label ${lit(clean(cat.name ?? cat.id))} ;`,
      `    dc:identifier ${lit(cat.id)} ;`,
      ...(cat.url ? [`    rdfs:seeAlso <${cat.url.replace(/[<>"{}|^`\\\s]/g, encodeURIComponent)}> ;`] : []),
      `    rdfs:comment ${lit(`The ${conf.what.replace(/ \(.*\)$/, '')} list of the QMRF endpoint catalogue (${cat.endpoints.length} entries).`)} .`,
      '',
    );
  }
  out.push(
    'otee:Endpoints a owl:Class ;',
    '    rdfs:label "Endpoints" ;',
    '    dc:title "Endpoints" ;',
    '    rdfs:comment "The root of all endpoints: a measurable chemical property or (eco)toxicological effect. Features state their endpoint with owl:sameAs." .',
    '',
  );
  for (const c of classes) {
    const parent = typeof c.parent === 'string' ? c.parent : c.parent.local;
    const lines = [
      `otee:${c.local} a owl:Class ;`,
      `    rdfs:subClassOf otee:${parent} ;`,
      `    rdfs:label ${lit(c.label)} ;`,
      `    dc:title ${lit(c.label)} ;`,
    ];
    if (c.notation) lines.push(`    skos:notation ${lit(c.notation)} ;`);
    if (c.echaNo) lines.push(`    otee:echaNo ${lit(c.echaNo)} ;`);
    if (c.oecdNo) lines.push(`    otee:oecdNo ${lit(c.oecdNo)} ;`);
    if (c.id) lines.push(`    dc:identifier ${lit(c.id)} ;`);
    lines.push(`    skos:inScheme otee:${c.scheme} ;`);
    lines.push(`    rdfs:comment ${lit(c.comment)} .`);
    out.push(...lines, '');
  }
  return out.join('\n');
}

const xml = readFileSync(input, 'utf8');
const catalogues = readCatalogue(xml);
const classes = build(catalogues);
const source = 'qmrf/endpoints-EC-OECD-QMRF.xml';
writeFileSync(output, turtle(catalogues, classes, source));
const n = (k) => classes.filter((c) => c.kind === k).length;
console.log(
  `wrote ${output}: ${classes.length + 1} classes (${n('group')} groups, ${n('subgroup')} subgroups, ${n('endpoint')} endpoints) from ${catalogues.map((c) => `${c.id} ${c.endpoints.length}`).join(', ')}`,
);
