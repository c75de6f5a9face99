"""Time of ``classify`` per query on the shared workload (kernel compiled outside the timing)."""

from .workload import QUERIES, predicate, statistics


class Classify:
    params = ([1_000_000], sorted(QUERIES))
    param_names = ["containers", "query"]
    timeout = 300

    def setup(self, n, query):
        self.stats, self.pred = statistics(n), predicate(query)
        self.pred.classify(self.stats)  # compile outside the timed region

    def time_classify(self, n, query):
        self.pred.classify(self.stats)

    def peakmem_classify(self, n, query):
        self.pred.classify(self.stats)
