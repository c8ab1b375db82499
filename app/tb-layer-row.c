/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-layer-row.c: a row of the model builder's layer list (tb-layer-row.ui):
 * the settings of its kind of layer as spin buttons and drop-downs, which
 * edit its copy of the layer; the builder keeps the model's layers and
 * shows what it checked on the row.
 */
#define G_LOG_DOMAIN "trainbench-model-builder"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-layer-row.h"

struct _TbLayerRow
{
  GtkListBoxRow parent_instance;

  /* owned */
  NnLayerSpec layer;             /* as the row's settings left it */

  /* template widgets */
  GtkWidget *number_label;
  GtkWidget *title_label;
  GtkWidget *settings_box;       /* GtkFlowBox of the kind's settings */
  GtkWidget *shape_label;
  GtkWidget *params_label;
  GtkWidget *error_label;
};

G_DEFINE_FINAL_TYPE (TbLayerRow, tb_layer_row, GTK_TYPE_LIST_BOX_ROW)

enum
{
  SIGNAL_CHANGED,
  SIGNAL_MOVE,
  SIGNAL_REMOVE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* in the order of NnActivation */
static const char *activation_ids[] = { "linear", "relu", "sigmoid", "tanh", "softmax", NULL };
/* in the order of NnPadding */
static const char *padding_ids[] = { "valid", "same", NULL };

const char *
tb_layer_kind_title (NnLayerKind kind)
{
  switch (kind)
    {
    case NN_LAYER_DENSE:
      return _("Dense");
    case NN_LAYER_CONV2D:
      return _("Conv 2D");
    case NN_LAYER_MAXPOOL2D:
      return _("Max pool");
    case NN_LAYER_AVGPOOL2D:
      return _("Average pool");
    case NN_LAYER_FLATTEN:
      return _("Flatten");
    case NN_LAYER_DROPOUT:
      return _("Dropout");
    case NN_LAYER_ACTIVATION:
      return _("Activation");
    default:
      return "?";
    }
}

/* ------------------------------------------------------------ settings */

static void
units_changed_cb (GtkSpinButton *spin,
                  TbLayerRow    *self)
{
  self->layer.units = gtk_spin_button_get_value_as_int (spin);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
filters_changed_cb (GtkSpinButton *spin,
                    TbLayerRow    *self)
{
  self->layer.filters = gtk_spin_button_get_value_as_int (spin);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* A convolution's kernel, or a pooling's window, which is also its stride. */
static void
kernel_changed_cb (GtkSpinButton *spin,
                   TbLayerRow    *self)
{
  NnLayerSpec *l = &self->layer;

  l->kernel_h = l->kernel_w = gtk_spin_button_get_value_as_int (spin);
  if (l->kind != NN_LAYER_CONV2D)
    l->stride_h = l->stride_w = l->kernel_h;
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
rate_changed_cb (GtkSpinButton *spin,
                 TbLayerRow    *self)
{
  self->layer.rate = (float) gtk_spin_button_get_value (spin);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
activation_changed_cb (GtkDropDown *dropdown,
                       GParamSpec  *pspec,
                       TbLayerRow  *self)
{
  self->layer.activation = (NnActivation) gtk_drop_down_get_selected (dropdown);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
padding_changed_cb (GtkDropDown *dropdown,
                    GParamSpec  *pspec,
                    TbLayerRow  *self)
{
  self->layer.padding = gtk_drop_down_get_selected (dropdown) == 1 ? NN_PADDING_SAME
                                                                    : NN_PADDING_VALID;
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* Settings sit in a flow box, so a narrow window wraps them to a new line. */
static void
add_setting (TbLayerRow *self,
             GtkWidget  *widget)
{
  gtk_widget_set_halign (widget, GTK_ALIGN_START);
  gtk_flow_box_insert (GTK_FLOW_BOX (self->settings_box), widget, -1);
  /* the child is a container only: keyboard focus goes to the control */
  gtk_widget_set_focusable (gtk_widget_get_parent (widget), FALSE);
}

static void
add_spin (TbLayerRow *self,
          const char *label,
          double      min,
          double      max,
          double      step,
          int         digits,
          double      value,
          GCallback   changed,
          guint       index)
{
  GtkWidget *pair = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *l = gtk_label_new (label);
  GtkWidget *spin = gtk_spin_button_new_with_range (min, max, step);
  g_autofree char *a11y = g_strdup_printf (_("%s of layer %u"), label, index + 1);

  gtk_widget_add_css_class (l, "dim-label");
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), (guint) digits);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  g_signal_connect (spin, "value-changed", changed, self);
  gtk_box_append (GTK_BOX (pair), l);
  gtk_box_append (GTK_BOX (pair), spin);
  add_setting (self, pair);
}

static void
add_dropdown (TbLayerRow  *self,
              const char  *label,
              const char **items,
              guint        selected,
              GCallback    changed,
              guint        index)
{
  GtkWidget *dd = gtk_drop_down_new_from_strings (items);
  g_autofree char *a11y = g_strdup_printf (_("%s of layer %u"), label, index + 1);

  gtk_drop_down_set_selected (GTK_DROP_DOWN (dd), selected);
  gtk_widget_set_valign (dd, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (dd), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  g_signal_connect (dd, "notify::selected", changed, self);
  add_setting (self, dd);
}

/* The settings of the layer's kind, at its values. */
static void
add_settings (TbLayerRow *self,
              guint       index)
{
  const NnLayerSpec *l = &self->layer;

  switch (l->kind)
    {
    case NN_LAYER_DENSE:
      add_spin (self, _("Units"), 1, 65536, 1, 0, l->units, G_CALLBACK (units_changed_cb), index);
      add_dropdown (self, _("Activation"), activation_ids, l->activation,
                    G_CALLBACK (activation_changed_cb), index);
      break;
    case NN_LAYER_CONV2D:
      add_spin (self, _("Filters"), 1, 4096, 1, 0, l->filters, G_CALLBACK (filters_changed_cb),
                index);
      add_spin (self, _("Kernel"), 1, 15, 1, 0, l->kernel_h, G_CALLBACK (kernel_changed_cb), index);
      add_dropdown (self, _("Padding"), padding_ids, l->padding == NN_PADDING_SAME,
                    G_CALLBACK (padding_changed_cb), index);
      add_dropdown (self, _("Activation"), activation_ids, l->activation,
                    G_CALLBACK (activation_changed_cb), index);
      break;
    case NN_LAYER_MAXPOOL2D:
    case NN_LAYER_AVGPOOL2D:
      add_spin (self, _("Window"), 1, 16, 1, 0, l->kernel_h, G_CALLBACK (kernel_changed_cb), index);
      break;
    case NN_LAYER_DROPOUT:
      add_spin (self, _("Rate"), 0, 0.95, 0.05, 2, l->rate, G_CALLBACK (rate_changed_cb), index);
      break;
    case NN_LAYER_ACTIVATION:
      add_dropdown (self, _("Activation"), activation_ids, l->activation,
                    G_CALLBACK (activation_changed_cb), index);
      break;
    case NN_LAYER_FLATTEN:
    default:
      break;
    }
}

/* ------------------------------------------------------------ buttons */

static void
move_up_cb (TbLayerRow *self,
            GtkButton  *button)
{
  g_signal_emit (self, signals[SIGNAL_MOVE], 0, -1);
}

static void
move_down_cb (TbLayerRow *self,
              GtkButton  *button)
{
  g_signal_emit (self, signals[SIGNAL_MOVE], 0, 1);
}

static void
remove_cb (TbLayerRow *self,
           GtkButton  *button)
{
  g_signal_emit (self, signals[SIGNAL_REMOVE], 0);
}

/* ------------------------------------------------------------ class */

static void
tb_layer_row_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), TB_TYPE_LAYER_ROW);
  G_OBJECT_CLASS (tb_layer_row_parent_class)->dispose (object);
}

static void
tb_layer_row_class_init (TbLayerRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_layer_row_dispose;

  /* A setting edited the layer. */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* Move the layer by this many places (-1 up, +1 down). */
  signals[SIGNAL_MOVE] =
    g_signal_new ("move", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  /* Remove the layer. */
  signals[SIGNAL_REMOVE] =
    g_signal_new ("remove", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-layer-row.ui");
  gtk_widget_class_bind_template_child (widget_class, TbLayerRow, number_label);
  gtk_widget_class_bind_template_child (widget_class, TbLayerRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, TbLayerRow, settings_box);
  gtk_widget_class_bind_template_child (widget_class, TbLayerRow, shape_label);
  gtk_widget_class_bind_template_child (widget_class, TbLayerRow, params_label);
  gtk_widget_class_bind_template_child (widget_class, TbLayerRow, error_label);
  gtk_widget_class_bind_template_callback (widget_class, move_up_cb);
  gtk_widget_class_bind_template_callback (widget_class, move_down_cb);
  gtk_widget_class_bind_template_callback (widget_class, remove_cb);
}

static void
tb_layer_row_init (TbLayerRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
tb_layer_row_new (const NnLayerSpec *layer,
                  guint              index)
{
  TbLayerRow *self;
  g_autofree char *number = g_strdup_printf ("%u", index + 1);
  g_autofree char *a11y = NULL;

  g_return_val_if_fail (layer != NULL, NULL);

  self = g_object_new (TB_TYPE_LAYER_ROW, NULL);
  self->layer = *layer;
  gtk_label_set_text (GTK_LABEL (self->number_label), number);
  gtk_label_set_text (GTK_LABEL (self->title_label), tb_layer_kind_title (layer->kind));
  add_settings (self, index);
  a11y = g_strdup_printf (_("Layer %u: %s"), index + 1, tb_layer_kind_title (layer->kind));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  return GTK_WIDGET (self);
}

const NnLayerSpec *
tb_layer_row_get_layer (TbLayerRow *self)
{
  g_return_val_if_fail (TB_IS_LAYER_ROW (self), NULL);
  return &self->layer;
}

void
tb_layer_row_set_shape (TbLayerRow *self,
                        const char *shape,
                        const char *params)
{
  g_return_if_fail (TB_IS_LAYER_ROW (self));

  gtk_label_set_text (GTK_LABEL (self->shape_label), shape);
  gtk_label_set_text (GTK_LABEL (self->params_label), params);
}

void
tb_layer_row_set_error (TbLayerRow *self,
                        const char *error)
{
  g_return_if_fail (TB_IS_LAYER_ROW (self));

  if (error != NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->error_label), error);
      gtk_widget_set_visible (self->error_label, TRUE);
      gtk_widget_add_css_class (GTK_WIDGET (self), "tb-invalid");
    }
  else
    {
      gtk_widget_set_visible (self->error_label, FALSE);
      gtk_widget_remove_css_class (GTK_WIDGET (self), "tb-invalid");
    }
}
