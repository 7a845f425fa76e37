# across.gp: each workload of a suite run, each label's % change of the
# workload's own operations per second vs the baseline, 95% CI.
load "common.gp"
load datadir."/across.vars"
set title "Change vs ".baseline." on every workload, 95% CI\n".mode_title
set ylabel "% change of operations per second"
set xrange [0.5:nworkloads + 0.5]
set xtics rotate by -45
set offsets 0, 0, graph 0.1, graph 0.1
set key top right
set xzeroaxis lt -1 lw 1 dt 2
# the workloads' names once, from the first file; then each label's points
plot datadir.sprintf("/across_%d.dat", 1) using 1:(NaN):xtic(5) notitle, \
	for [j=1:nacross] datadir.sprintf("/across_%d.dat", j) using \
	($1 + 0.15 * (j - (nacross + 1) / 2.0)):2:3:4 with yerrorbars \
	lt value(sprintf("acolor%d", j)) pt 7 ps 1.1 \
	title value(sprintf("atitle%d", j))
