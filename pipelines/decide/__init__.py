"""The guide's decision for one workload, walked in its order: the software gate, the pilot, the bill, the payback,
then one verdict naming the rule that decided it. Every step is rows of the warehouse's views, unchanged, so each
figure printed traces to its view row; vendor claims are shown as claims and never decide anything."""
