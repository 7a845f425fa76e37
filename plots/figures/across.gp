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
# a change whose interval could not be computed is a point with no bar
if (anote ne "") set label 1 anote at graph 0.01, graph 0.03 font ",9"
# the workloads' names once, from the first file; then each label's
# points with their intervals, and those without one
plot datadir.sprintf("/across_%d.dat", 1) using 1:(NaN):xtic(5) notitle, \
	for [j=1:nacross] datadir.sprintf("/across_%d.dat", j) using \
	($1 + 0.15 * (j - (nacross + 1) / 2.0)):(valid(3) ? $2 : NaN):3:4 with yerrorbars \
	lt value(sprintf("acolor%d", j)) pt 7 ps 1.1 \
	title value(sprintf("atitle%d", j)), \
	for [j=1:nacross] datadir.sprintf("/across_%d.dat", j) using \
	($1 + 0.15 * (j - (nacross + 1) / 2.0)):(valid(3) ? NaN : $2) with points \
	lt value(sprintf("acolor%d", j)) pt 7 ps 1.1 notitle
