# profile.gp: where each kernel's difference from the baseline comes from:
# its functions whose kernel instructions per tbench operation changed
# most, ranked, B - A with the interval of the median per-seed difference
# (analysis/comparison/profile.py); red bars: functions with static-key
# sites.
load datadir."/profile.vars"
height = 150 + 330 * nprof
width = 1100
load "common.gp"
set multiplot layout nprof, 1 \
	title "Where the difference comes from: kernel instructions per tbench operation, by function\n".mode_title
set style fill solid 0.8 border -1
set grid xtics lc rgb "#dddddd" lw 1
set grid noytics
set xzeroaxis lt -1 lw 1
set yzeroaxis lt -1 lw 1
set xlabel "difference per op (B - A), 95% interval"
set yrange [ntop + 0.6:0.4]
set ytics nomirror scale 0 font ",10"
set offsets graph 0.12, graph 0.12, 0, 0
do for [p=1:nprof] {
	# one key, below the last panel
	if (p < nprof) { unset key } else { set key outside bottom center horizontal font ",10"; set bmargin 5 }
	f = datadir.sprintf("/profile_%d.dat", p)
	set title value(sprintf("ptitle%d", p))
	# the values as labels (set label: a labels plot whose points are all
	# undefined crashes gnuplot 5.4)
	unset label
	load datadir.sprintf("/profile_%d.labels", p)
	plot f using ($2 / 2):1:($2 < 0 ? $2 : 0):($2 < 0 ? 0 : $2):($1 - 0.35):($1 + 0.35):5:ytic(6) \
			with boxxyerror lc rgb variable, \
		f using 2:1:3:4 with xerrorbars lc rgb "black" pt 0, \
		NaN with boxes fc rgb "#c03030" title "has static-key sites", \
		NaN with boxes fc rgb "#4c72b0" title "no static-key site"
}
unset multiplot
