"""The map/reduce of a job: summarize each rank anywhere, merge the summaries; the same job as
analyzing the folder. Run by hand, with pickling, and on a Dask LocalCluster."""

import pickle

import pytest

import ampscope


def rank_files(folder):
    return sorted(p for p in folder.iterdir() if p.is_file())


def test_merge_of_summaries_equals_analyzing_the_folder(dlrm_ranks):
    summaries = [pickle.loads(pickle.dumps(ampscope.summarize(path))) for path in rank_files(dlrm_ranks)]
    assert all(len(s.results) == 1 for s in summaries)
    # In any order: the ranks are numbered by the traces, not by the order of arrival.
    job = ampscope.merge(reversed(summaries))
    assert job.is_job
    assert job.summary == ampscope.analyze(dlrm_ranks).summary
    # A merge of the merge's own document is the same job again.
    assert ampscope.merge([job.summary]).summary == job.summary


def test_merge_refuses_bad_results(tmp_path):
    bad = tmp_path / "rank0.json"
    bad.write_text('{"rank_result": {"rank": "zero"}}')
    with pytest.raises(ampscope.TraceError, match="rank0.json"):
        ampscope.merge([bad])
    with pytest.raises(ampscope.TraceError, match="cannot open"):
        ampscope.merge([tmp_path / "missing.json"])


def test_dask_bag_map_reduce_on_a_local_cluster(dlrm_ranks):
    bag = pytest.importorskip("dask.bag")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        files = [str(p) for p in rank_files(dlrm_ranks)]
        summaries = bag.from_sequence(files, npartitions=len(files)).map(ampscope.summarize).compute()
    job = ampscope.merge(summaries)
    assert job.summary == ampscope.analyze(dlrm_ranks).summary
    assert len(job.ranks) == 8
