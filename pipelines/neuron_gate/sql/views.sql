-- The Neuron software gate as data: what ships (the manifest), what the documentation says (statuses, quoted),
-- and where the two disagree. Nothing here fills in what a source does not state.

-- A release number's order: 2.9.0 before 2.10.0 (as a list of integers, compared element by element).
CREATE OR REPLACE MACRO release_order(release) AS
    list_transform(string_split(release, '.'), part -> TRY_CAST(part AS INTEGER));

CREATE OR REPLACE VIEW neuron_packages AS
SELECT * EXCLUDE (attributes_hash) FROM neuron_package_history WHERE valid_to IS NULL;

-- Every release a source names, with its date where one is printed; two sources that date it differently are
-- both kept (dates_given > 1) and reported in neuron_gate_disagreements.
CREATE OR REPLACE VIEW neuron_releases AS
WITH dated AS (
    SELECT release, release_date, date_printed, source_id, source_url
    FROM neuron_release_date_history WHERE valid_to IS NULL
),
named AS (
    SELECT release FROM dated UNION SELECT DISTINCT release FROM neuron_packages
)
SELECT n.release,
       release_order(n.release) AS release_order,
       min(d.release_date) AS release_date,
       count(DISTINCT d.release_date) AS dates_given,
       list(DISTINCT d.date_printed ORDER BY d.date_printed) FILTER (WHERE d.date_printed IS NOT NULL)
           AS dates_printed,
       list(DISTINCT d.source_id ORDER BY d.source_id) FILTER (WHERE d.source_id IS NOT NULL) AS dated_by,
       EXISTS (SELECT 1 FROM neuron_packages p WHERE p.release = n.release) AS in_manifest
FROM named AS n LEFT JOIN dated AS d USING (release)
GROUP BY n.release;

-- The documentation's statements, each with the release it speaks for: the page's own (its URL's /en/<v>/ or its
-- text), else the newest release dated on or before the fetch (a /en/latest/ page speaks for the release current
-- when it was read); no dated release known: NULL, not stated.
-- The SDK policy's phases, each keyed by the gate's word for it (General Availability is "Stable", a supported or
-- recommended status; a phase the gate does not name has no key).
CREATE OR REPLACE VIEW neuron_lifecycle AS
SELECT phase, also_called, printed, meaning, applies,
       CASE WHEN lower(also_called) = 'beta' OR lower(phase) = 'beta' THEN 'beta'
            WHEN lower(also_called) = 'stable' OR lower(phase) = 'stable' THEN 'stable'
            WHEN lower(phase) = 'maintenance' THEN 'maintenance'
            WHEN lower(phase) = 'end of support' THEN 'end of support'
       END AS phase_key,
       source_id, source_url, fetched_at, sha256, parser_version
FROM neuron_lifecycle_history WHERE valid_to IS NULL;

CREATE OR REPLACE VIEW neuron_support AS
SELECT s.package,
       s.framework,
       s.manifest_package,
       s.status,
       s.printed_statuses,
       s.instances,
       s.instances_only,
       s.from_release,
       s.last_release,
       s.versions,
       s.doc_release,
       s.work,
       s.in_maintenance,
       s.announced_on,
       l.printed AS lifecycle_phase,
       l.meaning AS phase_meaning,
       coalesce(s.doc_release, (
           SELECT arg_max(r.release, r.release_order) FROM neuron_releases AS r
           WHERE r.release_date <= CAST(s.fetched_at AS DATE))) AS release,
       CASE WHEN s.doc_release IS NOT NULL THEN 'page'
            WHEN EXISTS (SELECT 1 FROM neuron_releases AS r WHERE r.release_date <= CAST(s.fetched_at AS DATE))
                THEN 'newest release dated by the fetch'
       END AS release_basis,
       (SELECT r.release_date FROM neuron_releases AS r WHERE r.release = coalesce(s.doc_release, (
           SELECT arg_max(q.release, q.release_order) FROM neuron_releases AS q
           WHERE q.release_date <= CAST(s.fetched_at AS DATE)))) AS release_date,
       s.quoted,
       s.source_id,
       s.source_url,
       s.fetched_at,
       s.sha256,
       s.parser_version,
       s.fetch_id,
       s.valid_from
FROM neuron_support_history AS s
LEFT JOIN (  -- one meaning per phase, the newest read, should two sources ever give the policy
    SELECT phase_key, arg_max(printed, fetched_at) AS printed, arg_max(meaning, fetched_at) AS meaning
    FROM neuron_lifecycle WHERE phase_key IS NOT NULL GROUP BY phase_key
) AS l ON l.phase_key = CASE
    WHEN s.in_maintenance THEN 'maintenance'
    WHEN s.status = 'beta' THEN 'beta'
    WHEN s.status IN ('recommended', 'supported') THEN 'stable'
    WHEN s.status = 'end of support' THEN 'end of support' END
WHERE s.valid_to IS NULL;

-- Where the manifest and the documentation disagree, each as a named warning beside both statements.
CREATE OR REPLACE VIEW neuron_gate_disagreements AS
WITH shipped AS (
    SELECT release, package,
           list(DISTINCT package_version ORDER BY package_version) AS package_versions,
           list_sort(list_distinct(flatten(list(instances)))) AS instances,
           any_value(source_url) AS manifest_source_url
    FROM neuron_packages
    GROUP BY release, package
),
manifest_releases AS (SELECT DISTINCT release FROM neuron_packages),
stated AS (
    SELECT s.*, m.package_versions, m.instances AS manifest_instances, m.manifest_source_url,
           s.release IN (SELECT release FROM manifest_releases) AS release_in_manifest
    FROM neuron_support AS s LEFT JOIN shipped AS m ON m.release = s.release AND m.package = s.manifest_package
    WHERE s.manifest_package IS NOT NULL AND s.release IS NOT NULL
),
found AS (
    SELECT 'shipped_though_' || replace(status, ' ', '_') AS warning, *,
           'the documentation calls it ' || status || ', yet the manifest of ' || release || ' ships '
               || manifest_package || ' ' || array_to_string(package_versions, ', ') AS detail
    FROM stated
    WHERE status IN ('archived', 'not included', 'end of support') AND package_versions IS NOT NULL
      AND (from_release IS NULL OR release_order(release) >= release_order(from_release))
      AND (last_release IS NULL OR release_order(release) > release_order(last_release))
      AND versions IS NULL  -- a statement about some versions says nothing of the versions a manifest ships
    UNION ALL BY NAME
    SELECT 'stated_but_not_shipped' AS warning, *,
           'the documentation calls it ' || status || ', yet the manifest of ' || release || ' lists no '
               || manifest_package AS detail
    FROM stated
    WHERE status IN ('recommended', 'supported', 'beta') AND release_in_manifest AND package_versions IS NULL
      AND versions IS NULL
    UNION ALL BY NAME
    SELECT 'instances_differ' AS warning, *,
           'the documentation names ' || array_to_string(instances, ', ') || '; the manifest of ' || release
               || ' lists ' || array_to_string(manifest_instances, ', ') AS detail
    FROM stated
    WHERE instances IS NOT NULL AND manifest_instances IS NOT NULL
      AND list_sort(instances) <> manifest_instances
)
SELECT warning, package, framework, manifest_package, release, status AS doc_status, from_release,
       instances AS doc_instances, manifest_instances, package_versions AS manifest_versions, detail,
       quoted AS doc_quoted, source_id AS doc_source_id, source_url AS doc_source_url,
       manifest_source_url
FROM found
UNION ALL BY NAME
SELECT 'release_dates_differ' AS warning, release,
       'sources date release ' || release || ' ' || array_to_string(dates_printed, ' and ') AS detail,
       array_to_string(dated_by, ', ') AS doc_source_id
FROM neuron_releases
WHERE dates_given > 1;
