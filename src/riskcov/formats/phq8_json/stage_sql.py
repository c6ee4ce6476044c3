"""The SQL of the fast reader (`fast.py`): read the cut participant objects with DuckDB's JSON
reader into `{STAGE}`, derive the rows of `participants`, `items` and `item_signals`, and list
every participant whose values are not exactly what the Python reader would take unchanged
(`problems`). Ingest-only staging, not a warehouse object; the placeholders in braces are
filled in by `fast.sql()`. Statements are separated by `;` at the end of a line."""

STAGE_SQL = r"""
CREATE OR REPLACE TABLE {STAGE}.parts AS
SELECT r.k, b.exp_index,
       CASE json_type(r.p.participant_id)
           WHEN 'BIGINT' THEN TRY_CAST(r.p.participant_id::VARCHAR AS BIGINT)
           WHEN 'UBIGINT' THEN TRY_CAST(r.p.participant_id::VARCHAR AS BIGINT)
           WHEN 'VARCHAR' THEN CASE WHEN regexp_full_match(r.p.participant_id ->> '$', '-?[0-9]+')
                                    THEN TRY_CAST(r.p.participant_id ->> '$' AS BIGINT) END
       END AS participant_id,
       coalesce(json_type(r.p.success) = 'BOOLEAN', false) AS success_ok,
       coalesce(r.p.success::VARCHAR = 'true', false) AS success,
       CASE WHEN json_type(r.p.error) = 'VARCHAR' THEN r.p.error ->> '$' END AS error,
       r.p.error IS NULL OR json_type(r.p.error) = 'VARCHAR' AS error_ok,
       r.p.predicted_items AS pred_j, r.p.ground_truth_items AS gt_j, r.p.item_signals AS sig_j
FROM read_json('{FILE}',
               columns = {k: 'BIGINT', p: 'STRUCT(participant_id JSON, success JSON, error JSON, predicted_items JSON, ground_truth_items JSON, item_signals JSON)'},
               format = 'newline_delimited', maximum_object_size = 1073741824) AS r
JOIN {STAGE}.bounds AS b ON r.k BETWEEN b.first_k AND b.last_k;

CREATE OR REPLACE TABLE {STAGE}.participants AS
SELECT k, exp_index, participant_id, success, error, success AND sig_j IS NOT NULL AS has_signals,
       -- json_keys of anything but an object is empty, so the key test is also the type test
       participant_id IS NOT NULL AND success_ok AND error_ok AND (NOT success OR coalesce(
           list_sort(json_keys(pred_j)) = [{SORTED_ITEMS}]
           AND list_sort(json_keys(gt_j)) = [{SORTED_ITEMS}]
           AND (sig_j IS NULL OR list_sort(json_keys(sig_j)) = [{SORTED_ITEMS}]), false)) AS ok
FROM {STAGE}.parts;

CREATE OR REPLACE TABLE {STAGE}.items AS
SELECT k, exp_index, participant_id, item_index, [{ITEMS}][item_index + 1] AS item_name,
       CASE WHEN pt = 'NULL' THEN NULL ELSE pd::SMALLINT END AS pred, gd::SMALLINT AS gt,
       coalesce((pt = 'NULL' OR (pt IN ('BIGINT', 'UBIGINT', 'DOUBLE') AND pd IN ({SCORES})))
                AND gtt IN ('BIGINT', 'UBIGINT', 'DOUBLE') AND gd IN ({SCORES}), false) AS ok
FROM (
    SELECT k, exp_index, participant_id,
           unnest(range(8)) AS item_index,
           unnest(json_type(pred_j, [{ITEM_PATHS}])) AS pt,
           unnest(list_transform(json_extract(pred_j, [{ITEM_PATHS}]), lambda x: TRY_CAST(x::VARCHAR AS DOUBLE))) AS pd,
           unnest(json_type(gt_j, [{ITEM_PATHS}])) AS gtt,
           unnest(list_transform(json_extract(gt_j, [{ITEM_PATHS}]), lambda x: TRY_CAST(x::VARCHAR AS DOUBLE))) AS gd
    FROM {STAGE}.parts WHERE success
);

CREATE OR REPLACE TABLE {STAGE}.sig_raw AS
SELECT k, exp_index, participant_id, unnest(range(8)) AS item_index,
       unnest(json_extract(sig_j, [{ITEM_PATHS}])) AS sv
FROM {STAGE}.parts WHERE success AND sig_j IS NOT NULL;

DROP TABLE {STAGE}.parts;

CREATE OR REPLACE TABLE {STAGE}.signals AS
SELECT k, exp_index, participant_id, item_index, keys AS signal_keys,
    {SIGNAL_COLUMNS},
    -- Python's json.dumps separators; the check below keeps ',' and ':' out of the values
    CASE WHEN extra <> '{}' THEN replace(replace(extra, '":', '": '), ',"', ', "') END AS extra_signals,
    coalesce(len(keys) = len(list_distinct(keys))
        AND regexp_full_match(extra, '\{("[A-Za-z0-9_]+":(-?[0-9]+|true|false|null|"[ !#-+\--9;-\[\]-~]*"),?)*\}')
        AND {SIGNAL_CHECKS}, false) AS ok
FROM (
    -- the merge patch drops the known signals and keeps the others in document order
    SELECT *, json_keys(sv) AS keys, json_merge_patch(sv, '{SIGNAL_NULLS}')::VARCHAR AS extra,
           json_type(sv, [{SIGNAL_PATHS}]) AS t, json_transform(sv, '{SIGNAL_TYPES}') AS v
    FROM {STAGE}.sig_raw WHERE json_type(sv) = 'OBJECT'
);

CREATE OR REPLACE TABLE {STAGE}.problems AS
SELECT k FROM {STAGE}.participants WHERE NOT ok
UNION ALL SELECT k FROM {STAGE}.items WHERE NOT ok
UNION ALL SELECT k FROM {STAGE}.sig_raw WHERE json_type(sv) IS DISTINCT FROM 'OBJECT'
UNION ALL SELECT k FROM {STAGE}.signals WHERE NOT ok
UNION ALL SELECT min(k) FROM {STAGE}.participants GROUP BY exp_index, participant_id HAVING count(*) > 1;

DROP TABLE {STAGE}.sig_raw
"""
