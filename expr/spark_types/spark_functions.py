"""What Spark's built-in functions return, by kind: whether a call can be a predicate.

A predicate must be BOOLEAN after Spark's typing. For a function prunekit does not reason
about, bind needs only its result's kind: ``boolean`` (``rlike``, ``array_contains``: an
unknown leaf), ``numeric`` or ``string`` (a value: an error as a predicate, except where Spark
casts it to BOOLEAN, as ``x IS TRUE`` does in legacy mode), ``other`` (dates, arrays, maps:
never a predicate). A function whose result takes an argument's type (``coalesce``,
``greatest``, ``element_at``) or that Spark does not have (a user's function) has no kind here
and is taken for a predicate of unknown truth.

The table was read off Spark 4.3 by calling each built-in function over arguments of every
kind and recording the types Spark gave in both modes; a function is listed under a kind when
every call Spark accepted returned that kind.

>>> result_kind("length"), result_kind("rlike"), result_kind("coalesce"), result_kind("my_udf")
('numeric', 'boolean', None, None)
"""

from __future__ import annotations

_KINDS = {
    "boolean": """
        any array_contains between bool_and bool_or boolean contains endswith equal_null every
        ilike in is_valid_utf8 isnan isnotnull isnull like luhn_check map_contains_key not regexp
        regexp_like rlike some startswith xpath_boolean""",
    "numeric": """
        abs acos acosh approx_count_distinct array_position array_size ascii asin asinh atan atan2
        atanh avg bigint bit_and bit_count bit_get bit_length bit_or bit_xor bitmap_bit_position
        bitmap_bucket_number bitmap_count bround cardinality cbrt ceil ceiling char_length
        character_length corr cos cosh cot count count_if covar_pop covar_samp crc32 csc date_diff
        date_part datediff datepart day dayofmonth dayofweek dayofyear decimal degrees div double
        e exp expm1 extract factorial find_in_set float floor getbit hash hll_sketch_estimate hour
        hypot input_file_block_length input_file_block_start instr int jaro_winkler_similarity
        json_array_length kll_sketch_get_n_bigint kll_sketch_get_n_double kll_sketch_get_n_float
        kll_sketch_get_quantile_bigint kll_sketch_get_quantile_double
        kll_sketch_get_quantile_float kll_sketch_get_rank_bigint kll_sketch_get_rank_double
        kll_sketch_get_rank_float kurtosis len length levenshtein ln locate log log10 log1p log2
        mean median minute mod monotonically_increasing_id month months_between nanvl negative
        octet_length pi pmod posexplode posexplode_outer position positive pow power quarter
        radians rand randn random regexp_count regexp_instr regr_avgx regr_avgy regr_count
        regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy rint round sec second
        shiftleft shiftright shiftrightunsigned sign signum sin sinh size skewness smallint
        spark_partition_id sqrt std stddev stddev_pop stddev_samp sum tan tanh
        theta_sketch_estimate tinyint to_unix_timestamp try_avg try_divide try_mod try_multiply
        try_sum tuple_sketch_estimate_double tuple_sketch_estimate_integer
        tuple_sketch_summary_double tuple_sketch_summary_integer tuple_sketch_theta_double
        tuple_sketch_theta_integer unix_date unix_micros unix_millis unix_seconds unix_timestamp
        var_pop var_samp variance weekday weekofyear xpath_double xpath_float xpath_int xpath_long
        xpath_number xpath_short xxhash64 year""",
    "string": """
        base64 bin btrim char chr collation concat_ws conv current_catalog current_database
        current_path current_schema current_timezone current_user date_format dayname elt
        format_number format_string from_unixtime get_json_object hex initcap input_file_name
        json_tuple kll_sketch_to_string_bigint kll_sketch_to_string_double
        kll_sketch_to_string_float lcase left lower lpad ltrim make_valid_utf8 mask md5 monthname
        overlay parse_url printf quote regexp_extract regexp_replace regexp_substr repeat replace
        right rpad rtrim session_user sha sha1 sha2 soundex space split_part string substr
        substring substring_index to_base32 to_char to_csv to_json to_varchar to_xml translate
        trim try_parse_url try_url_decode try_validate_utf8 typeof ucase upper url_decode
        url_encode user uuid validate_utf8 version xpath_string""",
    "other": """
        add_months aes_decrypt aes_encrypt approx_top_k approx_top_k_accumulate array array_agg
        array_append array_compact array_distinct array_prepend array_remove array_repeat
        array_sort arrays_zip assert_true binary bitmap_and_agg bitmap_construct_agg bitmap_or_agg
        collect_list collect_set collect_union convert_timezone curdate current_date current_time
        current_timestamp date date_add date_from_unix_date date_sub date_trunc dateadd encode
        from_base32 from_utc_timestamp hll_sketch_agg hll_union_agg hmac json_object_keys
        kll_merge_agg_bigint kll_merge_agg_double kll_merge_agg_float kll_sketch_agg_bigint
        kll_sketch_agg_double kll_sketch_merge_bigint kll_sketch_merge_double
        kll_sketch_merge_float last_day localtime localtimestamp make_date make_dt_interval
        make_interval make_timestamp make_ym_interval map map_concat map_entries map_keys
        map_values named_struct next_day now parse_json raise_error regexp_extract_all sentences
        sequence session_window shuffle sort_array split st_geogfromwkb st_geomfromwkb str_to_map
        struct theta_intersection_agg theta_sketch_agg theta_union_agg timestamp timestamp_micros
        timestamp_millis timestamp_nanos timestamp_seconds to_binary to_date to_timestamp
        to_timestamp_ltz to_timestamp_ntz to_utc_timestamp to_variant_object transform
        transform_keys transform_values trunc try_aes_decrypt try_make_interval try_make_timestamp
        try_parse_json try_to_binary try_to_date try_to_timestamp tuple_intersection_agg_double
        tuple_intersection_agg_integer tuple_sketch_agg_double tuple_sketch_agg_integer
        tuple_union_agg_double tuple_union_agg_integer unbase64 unhex xpath""",
}

# Operators, as sql.py names them.
_OPERATORS = {"+": "numeric", "-": "numeric", "*": "numeric", "/": "numeric", "%": "numeric",
              "div": "numeric", "&": "numeric", "|": "numeric", "^": "numeric",
              ">>": "numeric", "<<": "numeric", ">>>": "numeric", "~": "numeric",
              "||": "string"}

RESULT_KINDS: dict[str, str] = {name: kind for kind, names in _KINDS.items()
                                for name in names.split()} | _OPERATORS


def result_kind(name: str) -> str | None:
    """The kind of what Spark's function (or operator) ``name`` returns; None if it depends on
    the arguments or the function is not Spark's."""
    return RESULT_KINDS.get(name.lower())
