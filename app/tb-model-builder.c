/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-model-builder.c: the model builder (tb-model-builder.ui): the layer
 * list (a TbLayerRow each, tb-layer-row.c), presets and the spec text. The
 * layers (an array of NnLayerSpec) are the truth; the text and the rows are
 * views of them, re-checked with nn_spec_infer on each edit.
 */
#define G_LOG_DOMAIN "trainbench-model-builder"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-error.h"
#include "tb-format.h"
#include "tb-layer-row.h"
#include "tb-model-builder.h"

struct _TbModelBuilder
{
  GtkBox parent_instance;

  /* owned */
  GArray *layers;            /* NnLayerSpec */
  char *spec_text;           /* canonical text of `layers` */
  char *preset_spec;         /* canonical text of `preset` */
  char *error;               /* what is wrong, or NULL */
  int error_layer;           /* 0-based, -1 = none or not a layer's */
  gint64 params;
  NnInputShape input;
  int classes;
  guint bad_at;              /* while text_invalid: the index among the layers of the one that does not parse */
  guint updating_text : 1;
  guint text_invalid : 1;
  guint valid : 1;           /* as "valid" last announced it */
  guint modified : 1;        /* the layers are no longer `preset`'s */

  /* borrowed */
  const NnPreset *preset;    /* the one loaded last (the engine's), or NULL */

  /* template widgets */
  GtkWidget *preset_button;  /* GtkMenuButton of the engine's presets */
  GtkWidget *add_button;     /* GtkMenuButton of the kinds of layer */
  GtkWidget *list;           /* GtkListBox of TbLayerRow */
  GtkWidget *entry;          /* spec text */
  GtkWidget *error_label;
  GtkWidget *params_label;
  GtkWidget *input_label;
};

G_DEFINE_FINAL_TYPE (TbModelBuilder, tb_model_builder, GTK_TYPE_BOX)

enum
{
  PROP_0,
  PROP_VALID,
  N_PROPS
};

enum
{
  SIGNAL_CHANGED,
  SIGNAL_PRESET_CHOSEN,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void refresh (TbModelBuilder *self, gboolean update_text);

static NnLayerSpec
default_layer (NnLayerKind kind)
{
  NnLayerSpec l = { .kind = kind };

  switch (kind)
    {
    case NN_LAYER_DENSE:
      l.units = 64;
      l.activation = NN_ACT_RELU;
      break;
    case NN_LAYER_CONV2D:
      l.filters = 32;
      l.kernel_h = l.kernel_w = 3;
      l.stride_h = l.stride_w = 1;
      l.activation = NN_ACT_RELU;
      break;
    case NN_LAYER_MAXPOOL2D:
    case NN_LAYER_AVGPOOL2D:
      l.kernel_h = l.kernel_w = 2;
      l.stride_h = l.stride_w = 2;
      break;
    case NN_LAYER_DROPOUT:
      l.rate = 0.25f;
      break;
    case NN_LAYER_ACTIVATION:
      l.activation = NN_ACT_RELU;
      break;
    case NN_LAYER_FLATTEN:
    default:
      break;
    }
  return l;
}

static NnSpec
as_spec (TbModelBuilder *self,
         guint           count)
{
  NnSpec spec = { .count = (int32_t) count, .layers = (NnLayerSpec *) self->layers->data };

  return spec;
}

/* The canonical text of a spec (free it). */
static char *
format_spec (const NnSpec *spec)
{
  size_t need = nn_spec_format (spec, NULL, 0);
  char *text = g_malloc (need + 1);

  nn_spec_format (spec, text, need + 1);
  return text;
}

/* The canonical text of the layers (free it). */
static char *
format_layers (TbModelBuilder *self)
{
  NnSpec spec = as_spec (self, self->layers->len);

  return format_spec (&spec);
}

static char *
shape_text (const NnLayerInfo *info)
{
  if (info->rank == 1)
    return g_strdup_printf ("(%d)", info->dims[0]);
  return g_strdup_printf ("(%d, %d, %d)", info->dims[0], info->dims[1], info->dims[2]);
}

static void
set_error (TbModelBuilder *self,
           const char     *message,
           int             layer)
{
  g_free (self->error);
  self->error = g_strdup (message);
  self->error_layer = message ? layer : -1;
}

/* ------------------------------------------------------------ checking */

/* Update the rows' shape, parameter and error labels in place: the shapes
 * of the first `known` layers are in `infos`. */
static void
show_rows (TbModelBuilder    *self,
           const NnLayerInfo *infos,
           guint              known)
{
  for (guint i = 0; i < self->layers->len; i++)
    {
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->list), (int) i);

      if (row == NULL)
        break;
      if (i < known)
        {
          g_autofree char *s = shape_text (&infos[i]);
          g_autofree char *p = tb_format_count (infos[i].params);

          tb_layer_row_set_shape (TB_LAYER_ROW (row), s, p);
        }
      else
        tb_layer_row_set_shape (TB_LAYER_ROW (row), "—", "");
      tb_layer_row_set_error (TB_LAYER_ROW (row),
                              (int) i == self->error_layer ? self->error : NULL);
    }
}

/* How many of the first `n` layers fit the input, their shapes in `infos`. */
static guint
infer_prefix (TbModelBuilder *self,
              guint           n,
              NnLayerInfo    *infos)
{
  for (guint k = 1; k <= n; k++)
    {
      NnSpec prefix = as_spec (self, k);
      NnError err = { 0 };

      if (nn_spec_infer (&prefix, self->input, infos, NULL, &err) != NN_OK)
        {
          /* refill the shapes of the layers that do fit */
          if (k > 1)
            {
              prefix = as_spec (self, k - 1);
              nn_spec_infer (&prefix, self->input, infos, NULL, &err);
            }
          return k - 1;
        }
    }
  return n;
}

static void
check_layers (TbModelBuilder *self)
{
  guint n = self->layers->len;
  g_autofree NnLayerInfo *infos = g_new0 (NnLayerInfo, MAX (n, 1));
  NnError err = { 0 };
  NnSpec spec;
  gint64 total = 0;
  guint known = n;   /* layers whose infos[] are filled */

  set_error (self, NULL, -1);
  self->params = 0;

  if (n == 0)
    {
      set_error (self, _("Add a layer to start"), -1);
      goto rows;
    }

  spec = as_spec (self, n);
  if (nn_spec_infer (&spec, self->input, infos, &total, &err) != NN_OK)
    {
      g_autofree char *message = tb_error_message (&err);

      /* the first layer that does not fit is the one to mark */
      known = infer_prefix (self, n, infos);
      set_error (self, message, known < n ? (int) known : -1);
    }
  else
    {
      const NnLayerInfo *last = &infos[n - 1];

      self->params = total;
      if (last->rank != 1 || last->dims[0] != self->classes)
        {
          g_autofree char *shape = shape_text (last);
          g_autofree char *msg =
            g_strdup_printf (_("The last layer gives %s outputs; the data set has %d classes: end with “dense %d softmax”"),
                             shape, self->classes, self->classes);

          set_error (self, msg, (int) n - 1);
        }
    }

rows:
  show_rows (self, infos, known);
}

/* The text does not parse (its error is set): the layers before the one
 * that does not are shown with their shapes, as far as they fit; no row
 * has an error of its own. */
static void
check_invalid_text (TbModelBuilder *self)
{
  guint n = MIN (self->bad_at, self->layers->len);
  g_autofree NnLayerInfo *infos = g_new0 (NnLayerInfo, MAX (n, 1));

  self->params = 0;
  show_rows (self, infos, infer_prefix (self, n, infos));
}

static void
refresh (TbModelBuilder *self,
         gboolean        update_text)
{
  if (update_text)
    {
      g_free (self->spec_text);
      self->spec_text = format_layers (self);
      self->text_invalid = FALSE;
      self->updating_text = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->entry), self->spec_text);
      self->updating_text = FALSE;
    }

  if (self->text_invalid)
    {
      gtk_widget_add_css_class (self->entry, "error");
      check_invalid_text (self);
    }
  else
    {
      gtk_widget_remove_css_class (self->entry, "error");
      check_layers (self);
    }

  /* a layer's problem is shown on its row; the rest under the list */
  if (self->error != NULL && self->error_layer < 0)
    {
      gtk_label_set_text (GTK_LABEL (self->error_label), self->error);
      gtk_widget_set_visible (self->error_label, TRUE);
    }
  else
    gtk_widget_set_visible (self->error_label, FALSE);

  {
    g_autofree char *num = tb_format_count (self->params);
    g_autofree char *p = g_strdup_printf (_("%s parameters"), num);

    gtk_label_set_text (GTK_LABEL (self->params_label), self->error ? "" : p);
  }

  /* a preset edited is modified; edited back to it, it is the preset again */
  if (self->preset != NULL)
    {
      g_autofree char *now = format_layers (self);

      self->modified = self->text_invalid || g_strcmp0 (now, self->preset_spec) != 0;
    }

  if (self->valid != tb_model_builder_is_valid (self))
    {
      self->valid = tb_model_builder_is_valid (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALID]);
    }
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* The user changed the layers. */
static void
edited (TbModelBuilder *self)
{
  refresh (self, TRUE);
}

/* ------------------------------------------------------------ rows */

static void
row_changed_cb (TbLayerRow     *row,
                TbModelBuilder *self)
{
  guint i = (guint) gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row));

  if (i >= self->layers->len)
    return;
  g_array_index (self->layers, NnLayerSpec, i) = *tb_layer_row_get_layer (row);
  edited (self);
}

static void
row_move_cb (TbLayerRow     *row,
             int             by,
             TbModelBuilder *self)
{
  guint i = (guint) gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row));

  if (by < 0 && i > 0)
    tb_model_builder_move_layer (self, i, i - 1);
  else if (by > 0 && i + 1 < self->layers->len)
    tb_model_builder_move_layer (self, i, i + 1);
}

static void
row_remove_cb (TbLayerRow     *row,
               TbModelBuilder *self)
{
  tb_model_builder_remove_layer (self, (guint) gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row)));
}

static void
rebuild_rows (TbModelBuilder *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->list), child);
  for (guint i = 0; i < self->layers->len; i++)
    {
      GtkWidget *row = tb_layer_row_new (&g_array_index (self->layers, NnLayerSpec, i), i);

      g_signal_connect (row, "changed", G_CALLBACK (row_changed_cb), self);
      g_signal_connect (row, "move", G_CALLBACK (row_move_cb), self);
      g_signal_connect (row, "remove", G_CALLBACK (row_remove_cb), self);
      gtk_list_box_append (GTK_LIST_BOX (self->list), row);
    }
}

/* ------------------------------------------------------------ text */

/* Make the layers those of `text` that parse, each on its own, in order;
 * returns where the first that does not parse would stand among them. The
 * layers are split as nn_spec_parse splits them (';' and line ends). */
static guint
take_layers_that_parse (TbModelBuilder *self,
                        const char     *text)
{
  g_auto(GStrv) parts = g_strsplit_set (text, ";\n\r", -1);
  guint bad_at = G_MAXUINT;

  g_array_set_size (self->layers, 0);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      NnSpec *one = NULL;
      NnError err = { 0 };

      if (*g_strstrip (parts[i]) == '\0')
        continue;
      if (nn_spec_parse (parts[i], &one, &err) == NN_OK)
        {
          g_array_append_vals (self->layers, one->layers, (guint) one->count);
          nn_spec_free (one);
        }
      else if (bad_at == G_MAXUINT)
        bad_at = self->layers->len;
    }
  return MIN (bad_at, self->layers->len);
}

static void
entry_changed_cb (GtkEditable    *entry,
                  TbModelBuilder *self)
{
  const char *text;
  NnSpec *spec = NULL;
  NnError err = { 0 };

  if (self->updating_text)
    return;

  text = gtk_editable_get_text (entry);
  if (nn_spec_parse (text, &spec, &err) != NN_OK)
    {
      g_autofree char *message = tb_error_message (&err);

      /* the list follows the text as far as it can, so no layer of an
       * earlier text (one keystroke shorter, say) stays behind with its
       * own, stale error: the text's one error names the layer */
      self->bad_at = take_layers_that_parse (self, text);
      self->text_invalid = TRUE;
      set_error (self, message, -1);
      g_free (self->spec_text);
      self->spec_text = format_layers (self);
      rebuild_rows (self);
      refresh (self, FALSE);
      return;
    }

  g_array_set_size (self->layers, 0);
  g_array_append_vals (self->layers, spec->layers, (guint) spec->count);
  nn_spec_free (spec);
  self->text_invalid = FALSE;
  g_free (self->spec_text);
  self->spec_text = g_strdup (text);
  rebuild_rows (self);
  refresh (self, FALSE);
}

/* ------------------------------------------------------------ actions */

static void
preset_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  TbModelBuilder *self = TB_MODEL_BUILDER (widget);
  const char *name = g_variant_get_string (parameter, NULL);

  if (tb_model_builder_load_preset (self, name))
    g_signal_emit (self, signals[SIGNAL_PRESET_CHOSEN], 0, nn_preset_find (name));
}

static void
add_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *parameter)
{
  TbModelBuilder *self = TB_MODEL_BUILDER (widget);
  int kind = g_variant_get_int32 (parameter);

  tb_model_builder_add_layer (self, (NnLayerKind) kind);
}

/* ------------------------------------------------------------ class */

static void
tb_model_builder_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  TbModelBuilder *self = TB_MODEL_BUILDER (object);

  switch (prop_id)
    {
    case PROP_VALID:
      g_value_set_boolean (value, tb_model_builder_is_valid (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tb_model_builder_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), TB_TYPE_MODEL_BUILDER);
  G_OBJECT_CLASS (tb_model_builder_parent_class)->dispose (object);
}

static void
tb_model_builder_finalize (GObject *object)
{
  TbModelBuilder *self = TB_MODEL_BUILDER (object);

  g_array_unref (self->layers);
  g_free (self->spec_text);
  g_free (self->preset_spec);
  g_free (self->error);
  G_OBJECT_CLASS (tb_model_builder_parent_class)->finalize (object);
}

static void
tb_model_builder_class_init (TbModelBuilderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = tb_model_builder_get_property;
  object_class->dispose = tb_model_builder_dispose;
  object_class->finalize = tb_model_builder_finalize;

  properties[PROP_VALID] =
    g_param_spec_boolean ("valid", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* A preset was picked from the menu: its hyperparameters come with it. */
  signals[SIGNAL_PRESET_CHOSEN] =
    g_signal_new ("preset-chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);

  gtk_widget_class_install_action (widget_class, "builder.preset", "s", preset_action);
  gtk_widget_class_install_action (widget_class, "builder.add", "i", add_action);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               RESOURCE_PREFIX "/tb-model-builder.ui");
  gtk_widget_class_bind_template_child (widget_class, TbModelBuilder, preset_button);
  gtk_widget_class_bind_template_child (widget_class, TbModelBuilder, add_button);
  gtk_widget_class_bind_template_child (widget_class, TbModelBuilder, list);
  gtk_widget_class_bind_template_child (widget_class, TbModelBuilder, entry);
  gtk_widget_class_bind_template_child (widget_class, TbModelBuilder, error_label);
  gtk_widget_class_bind_template_child (widget_class, TbModelBuilder, params_label);
  gtk_widget_class_bind_template_child (widget_class, TbModelBuilder, input_label);
  gtk_widget_class_bind_template_callback (widget_class, entry_changed_cb);
}

static void
tb_model_builder_init (TbModelBuilder *self)
{
  g_autoptr(GMenu) presets = g_menu_new ();
  g_autoptr(GMenu) kinds = g_menu_new ();
  const NnPreset *p;
  int count = 0;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->layers = g_array_new (FALSE, TRUE, sizeof (NnLayerSpec));
  self->input = (NnInputShape) { 1, 28, 28 };
  self->classes = 10;
  self->error_layer = -1;

  /* the menus: the engine's presets, and every kind of layer */
  p = nn_presets (&count);
  for (int i = 0; i < count; i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (p[i].title, NULL);

      g_menu_item_set_action_and_target_value (item, "builder.preset", g_variant_new_string (p[i].name));
      g_menu_append_item (presets, item);
    }
  for (int k = NN_LAYER_DENSE; k <= NN_LAYER_ACTIVATION; k++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (tb_layer_kind_title ((NnLayerKind) k), NULL);

      g_menu_item_set_action_and_target_value (item, "builder.add", g_variant_new_int32 (k));
      g_menu_append_item (kinds, item);
    }
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->preset_button), G_MENU_MODEL (presets));
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->add_button), G_MENU_MODEL (kinds));

  tb_model_builder_set_input (self, self->input, self->classes);
}

GtkWidget *
tb_model_builder_new (void)
{
  return g_object_new (TB_TYPE_MODEL_BUILDER, NULL);
}

gboolean
tb_model_builder_set_spec_text (TbModelBuilder *self,
                                const char     *text)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  gtk_editable_set_text (GTK_EDITABLE (self->entry), text);
  return !self->text_invalid;
}

const char *
tb_model_builder_get_spec_text (TbModelBuilder *self)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), NULL);
  return self->spec_text != NULL ? self->spec_text : "";
}

const char *
tb_model_builder_get_preset_name (TbModelBuilder *self)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), NULL);
  return self->preset != NULL && !self->modified ? self->preset->name : NULL;
}

const NnPreset *
tb_model_builder_get_loaded_preset (TbModelBuilder *self)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), NULL);
  return self->preset;
}

gboolean
tb_model_builder_load_preset (TbModelBuilder *self,
                              const char     *name)
{
  const NnPreset *preset;
  NnSpec *spec = NULL;
  NnError err = { 0 };

  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), FALSE);

  preset = nn_preset_find (name);
  if (preset == NULL || nn_spec_parse (preset->spec, &spec, &err) != NN_OK)
    return FALSE;
  /* before the text changes, so the "changed" it brings names the preset */
  self->preset = preset;
  g_free (self->preset_spec);
  self->preset_spec = format_spec (spec);
  nn_spec_free (spec);
  tb_model_builder_set_spec_text (self, preset->spec);
  refresh (self, TRUE);
  return TRUE;
}

void
tb_model_builder_set_input (TbModelBuilder *self,
                            NnInputShape    input,
                            int             classes)
{
  g_autofree char *text = NULL;

  g_return_if_fail (TB_IS_MODEL_BUILDER (self));

  self->input = input;
  self->classes = MAX (classes, 2);
  text = g_strdup_printf (_("Input (%d, %d, %d) · %d classes"),
                          input.channels, input.height, input.width, self->classes);
  gtk_label_set_text (GTK_LABEL (self->input_label), text);
  refresh (self, FALSE);
}

guint
tb_model_builder_get_n_layers (TbModelBuilder *self)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), 0);
  return self->layers->len;
}

const NnLayerSpec *
tb_model_builder_get_layer (TbModelBuilder *self,
                            guint           index)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), NULL);
  g_return_val_if_fail (index < self->layers->len, NULL);
  return &g_array_index (self->layers, NnLayerSpec, index);
}

/* Is `l` a classifier's output: a dense layer ending in softmax, or giving
 * one output per class? */
static gboolean
is_output_layer (TbModelBuilder    *self,
                 const NnLayerSpec *l)
{
  return l->kind == NN_LAYER_DENSE && (l->activation == NN_ACT_SOFTMAX || l->units == self->classes);
}

/* Where a new layer goes: before the output layer (with the softmax
 * activation layer that may follow it), since any layer after it at once
 * makes the model invalid; at the end of a model without one. */
static guint
insert_position (TbModelBuilder *self)
{
  guint n = self->layers->len;
  const NnLayerSpec *last = n > 0 ? &g_array_index (self->layers, NnLayerSpec, n - 1) : NULL;

  if (last == NULL)
    return 0;
  if (last->kind == NN_LAYER_ACTIVATION && last->activation == NN_ACT_SOFTMAX && n >= 2
      && g_array_index (self->layers, NnLayerSpec, n - 2).kind == NN_LAYER_DENSE)
    return n - 2;
  if (is_output_layer (self, last))
    return n - 1;
  return n;
}

void
tb_model_builder_add_layer (TbModelBuilder *self,
                            NnLayerKind     kind)
{
  NnLayerSpec l = default_layer (kind);

  g_return_if_fail (TB_IS_MODEL_BUILDER (self));

  g_array_insert_val (self->layers, insert_position (self), l);
  rebuild_rows (self);
  edited (self);
}

void
tb_model_builder_set_layer (TbModelBuilder    *self,
                            guint              index,
                            const NnLayerSpec *layer)
{
  g_return_if_fail (TB_IS_MODEL_BUILDER (self));
  g_return_if_fail (index < self->layers->len);

  g_array_index (self->layers, NnLayerSpec, index) = *layer;
  rebuild_rows (self);
  edited (self);
}

void
tb_model_builder_remove_layer (TbModelBuilder *self,
                               guint           index)
{
  g_return_if_fail (TB_IS_MODEL_BUILDER (self));
  g_return_if_fail (index < self->layers->len);

  g_array_remove_index (self->layers, index);
  rebuild_rows (self);
  edited (self);
}

void
tb_model_builder_move_layer (TbModelBuilder *self,
                             guint           from,
                             guint           to)
{
  NnLayerSpec l;
  GtkListBoxRow *row;

  g_return_if_fail (TB_IS_MODEL_BUILDER (self));
  g_return_if_fail (from < self->layers->len && to < self->layers->len);

  l = g_array_index (self->layers, NnLayerSpec, from);
  g_array_remove_index (self->layers, from);
  g_array_insert_val (self->layers, to, l);
  rebuild_rows (self);
  edited (self);

  /* keep the keyboard on the moved layer */
  row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (self->list), (int) to);
  if (row != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (row));
}

gboolean
tb_model_builder_is_valid (TbModelBuilder *self)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), FALSE);
  return self->error == NULL && !self->text_invalid && self->layers->len > 0;
}

const char *
tb_model_builder_get_error (TbModelBuilder *self,
                            int            *layer)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), NULL);
  if (layer != NULL)
    *layer = self->error_layer;
  return self->error;
}

gint64
tb_model_builder_get_params (TbModelBuilder *self)
{
  g_return_val_if_fail (TB_IS_MODEL_BUILDER (self), 0);
  return self->params;
}
