module cam8 (
    input  wire       clk,
    input  wire       rst,
    input  wire       wr_en,
    input  wire [2:0] wr_idx,
    input  wire [7:0] wr_key,
    input  wire       clr_en,
    input  wire [2:0] clr_idx,
    input  wire [7:0] search_key,
    output wire [7:0] match_mask,
    output wire       hit,
    output reg  [2:0] hit_idx
);
    reg [63:0] keys;   // entry i in keys[8*i +: 8]
    reg [7:0]  valid;
    integer k;

    always @(posedge clk) begin
        if (rst) begin
            valid <= 8'h00;
        end else begin
            if (clr_en)
                valid[clr_idx] <= 1'b0;
            if (wr_en) begin  // after the clear, so a write to the same entry wins
                valid[wr_idx] <= 1'b1;
                keys[8 * wr_idx +: 8] <= wr_key;
            end
        end
    end

    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : match
            assign match_mask[i] = valid[i] && (keys[8 * i +: 8] == search_key);
        end
    endgenerate

    assign hit = |match_mask;

    always @* begin
        hit_idx = 3'd0;
        for (k = 7; k >= 0; k = k - 1)
            if (match_mask[k])
                hit_idx = k[2:0];
    end
endmodule
