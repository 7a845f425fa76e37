# branches.gp: conditional branches and instructions per tbench operation
# per variant (TCG plugin in icount mode, perf where a PMU exists).
load "common.gp"
load datadir."/branches.vars"
set multiplot layout (npanels > 2 ? 2 : 1), (npanels > 1 ? 2 : 1) \
	title "Per tbench operation, mean and 95% CI (% vs ".baseline.")\n".mode_title
set style fill solid 0.5 border -1
set boxwidth 0.6
set yrange [0:*]
set offsets 0, 0, graph 0.25, 0
set xrange [0.4:*]
do for [p=1:npanels] {
	f = datadir.sprintf("/branches_%d.dat", p)
	set title value(sprintf("ptitle%d", p))
	plot f using 1:2:5:xtic(6) with boxes lc variable, \
		f using 1:2:3:4 with yerrorbars lc rgb "black" pt 0, \
		f using 1:2:7 with labels offset 0,2.4 font ",9", \
		f using 1:2:8 with labels offset 0,1.2 font ",9"
}
unset multiplot
