/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modelplug.h: the branches plugin's model=on: callbacks that drive the
 * modelled caches, predictor and BTB (modelcfg.h) from the instruction and
 * memory stream, adding their events to the plugin's running counters
 * (counters.h), and the model's report keys.
 */
#ifndef JLBENCH_MODELPLUG_H
#define JLBENCH_MODELPLUG_H

#include <stdio.h>

#include <qemu-plugin.h>

#include "counters.h"
#include "modelcfg.h"
#include "profile.h"

/*
 * modelplug_setup() - build the model of cfg (model_setup()), whose
 * events go to *live. 0, or -1 with a message in err. With the model off
 * nothing is built and modelplug_on() is false.
 */
int modelplug_setup(const struct model_cfg *cfg, struct counters *live,
		    char *err, size_t errlen);

bool modelplug_on(void);

/*
 * modelplug_tb() - register the model's callbacks on a translated block of
 * mode m; each event also goes to its instruction's bucket of prof (its
 * sink when the profile is off). Call it before registering any other callback on the block's
 * instructions: the model's events of an instruction then come before a
 * marker's snapshot on the same instruction.
 */
void modelplug_tb(struct qemu_plugin_tb *tb, enum mode m,
		  struct profile *prof);

/*
 * modelplug_report() - the model's keys: parameters, window figures (of
 * win; not-counted unless valid) and whole-run figures (of live).
 */
void modelplug_report(FILE *f, const struct counters *win, int valid,
		      const struct counters *live);

/* modelplug_report_region() - region.<id>.* model keys of sum. */
void modelplug_report_region(FILE *f, int id, const struct counters *sum);

#endif
