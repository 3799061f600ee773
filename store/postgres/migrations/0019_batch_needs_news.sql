-- An instance that saw no other listening sends its batches of plays
-- without their news and without announcing them (quietBatchSQL in
-- commit.go): the news' arrays and the announcement's part of the
-- statement cost PostgreSQL some 5 % of its work per play. If another
-- instance listens after all (it registered since the sender last
-- looked), the statement calls this function, which fails the batch as a
-- whole, nothing of it committed, with a code of this project's own; the
-- sender then sends the batch again with its news. The check sees every
-- registration committed before the batch took listenersLock, as the
-- announcement's own does.
CREATE FUNCTION batch_needs_news() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION 'another instance listens: the batch goes again with its news'
        USING ERRCODE = 'AYN01';
END
$$;
