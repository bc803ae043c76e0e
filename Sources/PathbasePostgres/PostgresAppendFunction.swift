/// The `pathbase_append` function (schema versions 5 and 6): one push appended in one statement,
/// so one round trip, instead of a transaction of lock, lookup, insert, update and notify.
///
/// It takes the account and the pushed records as one array per column, and returns one row
/// per record in their order: the record's sequence number, whether this call appended it,
/// and whether the record stored under its key has the same type and value. A record
/// already stored, or pushed twice in the call, keeps the first one's number. It returns no
/// row when the account does not exist.
///
/// The function first locks the account's row (`FOR UPDATE`); each later statement of a
/// PL/pgSQL function takes a new snapshot, so the lookup sees every record committed by the
/// appends that held the lock before, and numbers are taken and made visible in the same
/// order as before: a reader that has seen number *n* never later finds a record numbered
/// below *n* that it did not see. The NOTIFY of ``PostgresSyncServerStore/appendsChannel``
/// is sent in the same transaction, so it is delivered at commit.
///
/// Each pushed record is looked up on its own (a `LATERAL` subquery with `LIMIT 1`, which
/// PostgreSQL can only run as a probe of the `records_by_key` index), so an append costs
/// the same whatever the account holds. Written as a join, the planner chose from the
/// table's statistics, which lag behind a growing account: it hashed every record of the
/// account on each append (19 000 rows read for a push of 100; 33 ms an append, growing).
enum PostgresAppendFunction {

    /// `CREATE OR REPLACE FUNCTION pathbase_append(...)`.
    static let definition = """
        CREATE OR REPLACE FUNCTION pathbase_append(
            p_account BIGINT, p_models BIGINT[], p_instances BIGINT[], p_properties BIGINT[],
            p_times BIGINT[], p_counters BIGINT[], p_replicas BIGINT[], p_types TEXT[], p_values BYTEA[])
        RETURNS TABLE (o_sequence BIGINT, o_appended BOOLEAN, o_same BOOLEAN)
        LANGUAGE plpgsql VOLATILE AS $pathbase$
        DECLARE
            v_last BIGINT;
            v_added BIGINT;
        BEGIN
            SELECT a.last_sequence INTO v_last FROM accounts a WHERE a.id = p_account FOR UPDATE;
            IF NOT FOUND THEN
                RETURN;
            END IF;
            INSERT INTO records (account, sequence, model, instance, property, time, counter, replica, type, value)
            SELECT p_account, v_last + row_number() OVER (ORDER BY f.ord),
                   f.model, f.instance, f.property, f.time, f.counter, f.replica, f.type, f.value
            FROM (
                SELECT DISTINCT ON (i.model, i.instance, i.property, i.time, i.counter, i.replica) i.*
                FROM unnest(p_models, p_instances, p_properties, p_times, p_counters, p_replicas, p_types, p_values)
                     WITH ORDINALITY AS i(model, instance, property, time, counter, replica, type, value, ord)
                LEFT JOIN LATERAL (
                    SELECT 1 AS found FROM records r
                    WHERE r.account = p_account AND r.model = i.model AND r.instance = i.instance AND r.property = i.property
                      AND r.time = i.time AND r.counter = i.counter AND r.replica = i.replica
                    LIMIT 1) stored ON true
                WHERE stored.found IS NULL
                ORDER BY i.model, i.instance, i.property, i.time, i.counter, i.replica, i.ord
            ) f;
            GET DIAGNOSTICS v_added = ROW_COUNT;
            IF v_added > 0 THEN
                UPDATE accounts SET last_sequence = v_last + v_added WHERE id = p_account;
                PERFORM pg_notify('pathbase_appends', p_account::text || ':' || (v_last + v_added)::text);
            END IF;
            RETURN QUERY
            SELECT r.sequence,
                   r.sequence > v_last AND i.ord = min(i.ord) OVER (PARTITION BY i.model, i.instance, i.property, i.time, i.counter, i.replica),
                   r.type = i.type AND r.value = i.value
            FROM unnest(p_models, p_instances, p_properties, p_times, p_counters, p_replicas, p_types, p_values)
                 WITH ORDINALITY AS i(model, instance, property, time, counter, replica, type, value, ord)
            JOIN LATERAL (
                SELECT s.sequence, s.type, s.value FROM records s
                WHERE s.account = p_account AND s.model = i.model AND s.instance = i.instance AND s.property = i.property
                  AND s.time = i.time AND s.counter = i.counter AND s.replica = i.replica
                LIMIT 1) r ON true
            ORDER BY i.ord;
        END
        $pathbase$
        """
}
