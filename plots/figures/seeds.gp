# seeds.gp: one point per perturbation seed (icount). Left: each label's
# headline value as % from the label's median, where two modes show as two
# steps. Right: the paired % change of each kernel against the baseline on
# the same seed (an A/A twin: against its kernel, by round), its median and
# the median's 95% interval (the report's rule). Within a label the points
# are sorted by value and spread across its slot, so none hides another.
width = 1200
load "common.gp"
load datadir."/seeds.vars"
set multiplot layout 1, (npairs > 0 ? 2 : 1) \
	title "Per-seed ".seeds_metric.", one point per perturbation seed\n".mode_title
# the same margins in both panels, so that their plot areas match
set tmargin 4
set bmargin 5
set lmargin 11
set rmargin 3
set offsets 0, 0, graph 0.05, graph 0.05
set xzeroaxis lt -1 lw 1 dt 2
set key at graph 0.5, graph 1.02 center bottom horizontal

load datadir."/xtics.vars"
set xrange [0.5:nlabels + 0.5]
set ylabel "% from the label's median"
set xlabel "in each label, seeds sorted by value"
plot datadir."/seeds_left.dat" using 1:2:3 with points lc variable \
		pt 7 ps 0.7, \
	NaN with points lc rgb "#777777" pt 7 ps 0.7 \
		title "one seed, coloured by kernel"

if (npairs > 0) {
	load datadir."/seeds_xtics.vars"
	set xrange [0.5:npairs + 0.5]
	set ylabel right_ylabel
	set xlabel "paired by seed (an A/A twin: with its kernel, by round)"
	plot datadir."/seeds_median.dat" \
			using 1:(($3 + $4) / 2):(0.36):(($4 - $3) / 2) \
			with boxxyerror fs solid 0.3 noborder lc rgb "#999999" \
			title interval_title, \
		datadir."/seeds_right.dat" using 1:2:3 with points lc variable \
			pt 7 ps 0.7, \
		datadir."/seeds_median.dat" using ($1 - 0.36):2:(0.72):(0) \
			with vectors nohead lc rgb "black" lw 3 title "median"
}
unset multiplot
